package indexnow

import (
	"bytes"
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseJSON runs arbitrary bodies through the POST form's parser and
// the checks: nothing panics, every error is one of the sentinels, and an
// accepted submission holds what the checks promise.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"host":"example.com","key":"` + key + `","keyLocation":"https://example.com/d/k.txt","urlList":["https://example.com/d/a","https://example.com/d/b#f"]}`))
	f.Add([]byte(`{"key":"` + key + `","urlList":["http://[::1]:8080/a","http://[::1]:8080/%2e%2e/b"]}`))
	f.Add([]byte(`{"key":"` + key + `","urlList":["https://xn--bcher-kva.example/a","https://bücher.example/a"]}`))
	f.Add([]byte(`{"key":"` + key + `","urlList":[]}`))
	f.Add([]byte(`{"key":1}`))
	f.Add([]byte(`{} {}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseJSON(bytes.NewReader(body))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseJSON error %v is not ErrInvalid", err)
			}
			return
		}
		checkSubmission(t, r)
	})
}

// FuzzParseQuery does the same for the GET form's query string.
func FuzzParseQuery(f *testing.F) {
	f.Add("url=https%3A%2F%2Fexample.com%2Fa&key=" + key)
	f.Add("url=https://example.com/d/a&key=" + key + "&keyLocation=https://example.com/d/k.txt")
	f.Add("url=a&url=b&key=" + key)
	f.Add("url=http://127.0.0.1:99999/&key=;;;")
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		r, err := ParseQuery(q)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseQuery error %v is not ErrInvalid", err)
			}
			return
		}
		checkSubmission(t, r)
	})
}

func checkSubmission(t *testing.T, r Request) {
	t.Helper()
	s, err := r.Check()
	if err != nil {
		if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrOffScope) {
			t.Fatalf("Check error %v is neither ErrInvalid nor ErrOffScope", err)
		}
		return
	}
	if !ValidKey(s.Key) || len(s.URLs) == 0 || len(s.URLs) > MaxURLs || !strings.HasPrefix(s.Scope, "/") {
		t.Fatalf("accepted %+v", s)
	}
	k, err := url.Parse(s.KeyFile)
	if err != nil || k.Host != s.Host {
		t.Fatalf("key file %q is not on host %s: %v", s.KeyFile, s.Host, err)
	}
	for _, raw := range s.URLs {
		u, err := url.Parse(raw)
		if err != nil || u.Host != s.Host || !strings.HasPrefix(u.EscapedPath(), s.Scope) || u.Fragment != "" {
			t.Fatalf("accepted URL %q outside host %s or scope %s: %v", raw, s.Host, s.Scope, err)
		}
	}
}
