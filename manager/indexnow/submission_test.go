package indexnow

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

const key = "abc123-DEF456"

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		want    error
		host    string
		keyFile string
		scope   string
		urls    []string
	}{
		{name: "one URL, key at the root", req: Request{Key: key, URLs: []string{"https://Example.com/a"}},
			host: "example.com", keyFile: "https://example.com/" + key + ".txt", scope: "/", urls: []string{"https://example.com/a"}},
		{name: "both schemes on one host, the key file with the first URL's", req: Request{Key: key, URLs: []string{"https://example.com/a", "http://example.com/b"}},
			host: "example.com", keyFile: "https://example.com/" + key + ".txt", scope: "/", urls: []string{"https://example.com/a", "http://example.com/b"}},
		{name: "port kept, fragment dropped, duplicates once", req: Request{Key: key, Host: "example.com", URLs: []string{"http://example.com:8080/a#x", "http://example.com:8080/a", "http://EXAMPLE.com:8080/b"}},
			host: "example.com:8080", keyFile: "http://example.com:8080/" + key + ".txt", scope: "/", urls: []string{"http://example.com:8080/a", "http://example.com:8080/b"}},
		{name: "default port dropped", req: Request{Key: key, Host: "example.com", URLs: []string{"https://example.com:443/a"}},
			host: "example.com", keyFile: "https://example.com/" + key + ".txt", scope: "/", urls: []string{"https://example.com/a"}},
		{name: "keyLocation scopes to its directory", req: Request{Key: key, KeyLocation: "https://example.com/catalog/k.txt", URLs: []string{"https://example.com/catalog/a", "http://example.com/catalog/sub/b"}},
			host: "example.com", keyFile: "https://example.com/catalog/k.txt", scope: "/catalog/", urls: []string{"https://example.com/catalog/a", "http://example.com/catalog/sub/b"}},
		{name: "URL outside the key's directory", req: Request{Key: key, KeyLocation: "https://example.com/catalog/k.txt", URLs: []string{"https://example.com/catalog/a", "https://example.com/other"}},
			want: ErrOffScope},
		{name: "a prefix that is not the directory", req: Request{Key: key, KeyLocation: "https://example.com/catalog/k.txt", URLs: []string{"https://example.com/catalogue/a"}},
			want: ErrOffScope},
		{name: "dot segments cannot leave the scope", req: Request{Key: key, KeyLocation: "https://example.com/catalog/k.txt", URLs: []string{"https://example.com/catalog/../secret"}},
			want: ErrOffScope},
		{name: "keyLocation on another host", req: Request{Key: key, KeyLocation: "https://evil.example/k.txt", URLs: []string{"https://example.com/a"}},
			want: ErrOffScope},
		{name: "keyLocation on another port", req: Request{Key: key, KeyLocation: "https://example.com:8443/k.txt", URLs: []string{"https://example.com/a"}},
			want: ErrOffScope},
		{name: "URLs on two hosts", req: Request{Key: key, URLs: []string{"https://example.com/a", "https://other.example/b"}},
			want: ErrOffScope},
		{name: "host field names another host", req: Request{Key: key, Host: "other.example", URLs: []string{"https://example.com/a"}},
			want: ErrOffScope},
		{name: "a subdomain is another host", req: Request{Key: key, Host: "example.com", URLs: []string{"https://www.example.com/a"}},
			want: ErrOffScope},
		{name: "no key", req: Request{URLs: []string{"https://example.com/a"}}, want: ErrInvalid},
		{name: "key too short", req: Request{Key: "abc1234", URLs: []string{"https://example.com/a"}}, want: ErrInvalid},
		{name: "key too long", req: Request{Key: strings.Repeat("a", MaxKey+1), URLs: []string{"https://example.com/a"}}, want: ErrInvalid},
		{name: "key with a slash", req: Request{Key: "abcd/../efgh", URLs: []string{"https://example.com/a"}}, want: ErrInvalid},
		{name: "key with an underscore", req: Request{Key: "abcd_efgh", URLs: []string{"https://example.com/a"}}, want: ErrInvalid},
		{name: "no URL", req: Request{Key: key}, want: ErrInvalid},
		{name: "too many URLs", req: Request{Key: key, URLs: make([]string, MaxURLs+1)}, want: ErrInvalid},
		{name: "not http", req: Request{Key: key, URLs: []string{"ftp://example.com/a"}}, want: ErrInvalid},
		{name: "relative URL", req: Request{Key: key, URLs: []string{"/a"}}, want: ErrInvalid},
		{name: "keyLocation not a URL", req: Request{Key: key, KeyLocation: "k.txt", URLs: []string{"https://example.com/a"}}, want: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.req.Check()
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("Check = %+v, %v; want %v", s, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Host != tt.host || s.KeyFile != tt.keyFile || s.Scope != tt.scope || !slices.Equal(s.URLs, tt.urls) || s.Key != key {
				t.Fatalf("Check = %+v, want host %s, key file %s, scope %s, URLs %v", s, tt.host, tt.keyFile, tt.scope, tt.urls)
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	r, err := ParseQuery(url.Values{"url": {"https://example.com/a"}, "key": {key}, "keyLocation": {"https://example.com/k.txt"}})
	if err != nil || r.Key != key || r.KeyLocation != "https://example.com/k.txt" || !slices.Equal(r.URLs, []string{"https://example.com/a"}) || r.Host != "" {
		t.Fatalf("ParseQuery = %+v, %v", r, err)
	}
	for name, q := range map[string]url.Values{
		"no url":   {"key": {key}},
		"two urls": {"key": {key}, "url": {"https://example.com/a", "https://example.com/b"}},
	} {
		if _, err := ParseQuery(q); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestParseJSON(t *testing.T) {
	r, err := ParseJSON(strings.NewReader(`{"host":"example.com","key":"` + key + `","keyLocation":"https://example.com/k.txt","urlList":["https://example.com/a","https://example.com/b"],"extra":1}` + "\n"))
	if err != nil || r.Host != "example.com" || r.Key != key || r.KeyLocation != "https://example.com/k.txt" || len(r.URLs) != 2 {
		t.Fatalf("ParseJSON = %+v, %v", r, err)
	}
	many := `{"key":"` + key + `","urlList":[` + strings.Repeat(`"u",`, MaxURLs) + `"u"]}`
	for name, body := range map[string]string{
		"empty":          "",
		"not an object":  `["https://example.com/a"]`,
		"wrong type":     `{"key": 12345678, "urlList": []}`,
		"trailing data":  `{"key":"` + key + `","urlList":["https://example.com/a"]} {}`,
		"truncated":      `{"key":"` + key + `","urlList":["https://exa`,
		"too many URLs":  many,
		"urlList string": `{"key":"` + key + `","urlList":"https://example.com/a"}`,
	} {
		if _, err := ParseJSON(strings.NewReader(body)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	// The reader is bounded whatever the caller does.
	huge := `{"key":"` + key + `","urlList":["` + strings.Repeat("a", MaxBody) + `"]}`
	if _, err := ParseJSON(strings.NewReader(huge)); !errors.Is(err, ErrInvalid) {
		t.Errorf("a body over MaxBody: %v, want ErrInvalid", err)
	}
}

func TestMatchKeyFile(t *testing.T) {
	tests := []struct {
		name string
		body string
		ok   bool
	}{
		{"the key", key, true},
		{"with a newline", key + "\r\n", true},
		{"with a byte-order mark", "\uFEFF" + key + "\n", true},
		{"another key", "zzz123-DEF456", false},
		{"the key among other text", "key: " + key, false},
		{"the key in another case", strings.ToLower(key), false},
		{"empty", "", false},
		{"not UTF-8", key + "\xff", false},
		{"too long", key + strings.Repeat(" ", MaxKeyFile), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MatchKeyFile([]byte(tt.body), key)
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrKey)) {
				t.Fatalf("MatchKeyFile = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func ExampleRequest_Check() {
	s, err := Request{Key: key, KeyLocation: "https://example.com/news/key.txt",
		URLs: []string{"https://example.com/news/today", "https://example.com/news/today#top"}}.Check()
	fmt.Println(s.Host, s.Scope, s.URLs, err)
	// Output: example.com /news/ [https://example.com/news/today] <nil>
}
