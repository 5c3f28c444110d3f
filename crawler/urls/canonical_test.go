package urls

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func mustParse(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return u
}

func TestCanonical(t *testing.T) {
	base := "http://example.com/dir/page.html"
	tests := []struct {
		name string
		ref  string
		base string
		want string
		err  error
	}{
		{name: "absolute", ref: "http://example.com/a", want: "http://example.com/a"},
		{name: "lower-case scheme and host", ref: "HTTP://ExAmPle.COM/Path", want: "http://example.com/Path"},
		{name: "default http port dropped", ref: "http://example.com:80/", want: "http://example.com/"},
		{name: "default https port dropped", ref: "https://example.com:443/x", want: "https://example.com/x"},
		{name: "other port kept", ref: "http://example.com:8080/x", want: "http://example.com:8080/x"},
		{name: "fragment dropped", ref: "http://example.com/a#section", want: "http://example.com/a"},
		{name: "empty path becomes slash", ref: "http://example.com", want: "http://example.com/"},
		{name: "dot segments resolved", ref: "http://example.com/a/./b/../c", want: "http://example.com/a/c"},
		{name: "encoded dot segments resolved", ref: "http://example.com/a/%2e%2E/c", want: "http://example.com/c"},
		{name: "escapes upper-cased", ref: "http://example.com/a%2fb?q=%3a", want: "http://example.com/a%2Fb?q=%3A"},
		{name: "unreserved escapes decoded", ref: "http://example.com/%7Euser/%41?x=%61", want: "http://example.com/~user/A?x=a"},
		{name: "lone percent escaped", ref: "http://example.com/100%/x?p=5%", want: "http://example.com/100%25/x?p=5%25"},
		{name: "space escaped", ref: "http://example.com/a b", want: "http://example.com/a%20b"},
		{name: "non-ascii path escaped", ref: "http://example.com/ü", want: "http://example.com/%C3%BC"},
		{name: "idn host to punycode", ref: "http://bücher.example/", want: "http://xn--bcher-kva.example/"},
		{name: "trailing dot of the host dropped", ref: "http://Example.COM./a", want: "http://example.com/a"},
		{name: "trailing dot before a port", ref: "http://example.com.:8080/a", want: "http://example.com:8080/a"},
		{name: "trailing dots before an address", ref: "http://0../a", want: "http://0.0.0.0/a"},
		{name: "trailing dots after an address's parts", ref: "http://1.2.3..:81/", want: "http://1.2.0.3:81/"},
		{name: "pipe in path escaped", ref: "http://example.com/a|b", want: "http://example.com/a%7Cb"},
		{name: "user info removed", ref: "http://user:pw@example.com/", want: "http://example.com/"},
		{name: "query order kept", ref: "http://example.com/?b=2&a=1", want: "http://example.com/?b=2&a=1"},
		{name: "backslashes are slashes", ref: `http:\\example.com\a\b`, want: "http://example.com/a/b"},
		{name: "whitespace trimmed", ref: "  http://example.com/a\n", want: "http://example.com/a"},
		{name: "ipv4", ref: "http://0x7f.1/", want: "http://127.0.0.1/"},
		{name: "ipv6", ref: "http://[::1]:8080/", want: "http://[::1]:8080/"},
		{name: "relative", ref: "other.html", base: base, want: "http://example.com/dir/other.html"},
		{name: "relative parent", ref: "../up.html", base: base, want: "http://example.com/up.html"},
		{name: "root relative", ref: "/root?q=1", base: base, want: "http://example.com/root?q=1"},
		{name: "scheme relative", ref: "//other.org/x", base: base, want: "http://other.org/x"},
		{name: "query only", ref: "?page=2", base: base, want: "http://example.com/dir/page.html?page=2"},
		{name: "fragment only", ref: "#top", base: base, want: "http://example.com/dir/page.html"},
		{name: "empty ref is base", ref: "", base: base, want: "http://example.com/dir/page.html"},
		{name: "absolute ignores base", ref: "https://x.org/", base: base, want: "https://x.org/"},
		{name: "mailto", ref: "mailto:a@example.com", base: base, err: ErrScheme},
		{name: "javascript", ref: "javascript:void(0)", base: base, err: ErrScheme},
		{name: "ftp", ref: "ftp://example.com/file", err: ErrScheme},
		{name: "data", ref: "data:text/html,hi", err: ErrScheme},
		{name: "relative without base", ref: "/a", err: ErrInvalid},
		{name: "bad host", ref: "http://exa mple.com/", err: ErrInvalid},
		{name: "bad port", ref: "http://example.com:99999/", err: ErrInvalid},
		{name: "no host", ref: "http:///", err: ErrInvalid},
		{name: "too long", ref: "http://example.com/" + strings.Repeat("a", MaxLength), err: ErrTooLong},
		{name: "too long after escaping", ref: "http://example.com/" + strings.Repeat("a ", MaxLength/3), err: ErrTooLong},
		{name: "huge input", ref: "http://example.com/" + strings.Repeat("a", 10*MaxLength), err: ErrTooLong},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b *url.URL
			if tc.base != "" {
				b = mustParse(t, tc.base)
			}
			got, err := Canonical(tc.ref, b)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Canonical(%q) error = %v, want %v (got url %v)", tc.ref, err, tc.err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.ref, err)
			}
			if got.String() != tc.want {
				t.Errorf("Canonical(%q) = %q, want %q", tc.ref, got.String(), tc.want)
			}
			again, err := Canonical(got.String(), nil)
			if err != nil || again.String() != got.String() {
				t.Errorf("not idempotent: %q -> %v, %v", got.String(), again, err)
			}
		})
	}
}

func TestCanonicalLengthLimitExact(t *testing.T) {
	prefix := "http://example.com/"
	ok := prefix + strings.Repeat("a", MaxLength-len(prefix))
	if _, err := Canonical(ok, nil); err != nil {
		t.Errorf("URL of exactly MaxLength bytes refused: %v", err)
	}
	if _, err := Canonical(ok+"a", nil); !errors.Is(err, ErrTooLong) {
		t.Errorf("URL of MaxLength+1 bytes: err = %v, want ErrTooLong", err)
	}
}

func TestNewResolverRejectsBadBase(t *testing.T) {
	tests := []struct {
		name string
		base *url.URL
		err  error
	}{
		{name: "nil", base: nil, err: ErrInvalid},
		{name: "ftp", base: &url.URL{Scheme: "ftp", Host: "example.com", Path: "/"}, err: ErrScheme},
		{name: "relative", base: &url.URL{Path: "/a"}, err: ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewResolver(tc.base); !errors.Is(err, tc.err) {
				t.Errorf("NewResolver(%v) error = %v, want %v", tc.base, err, tc.err)
			}
		})
	}
}

func FuzzCanonical(f *testing.F) {
	seeds := []struct{ ref, base string }{
		{"http://example.com/a/b?c=d#e", ""},
		{"../x/./y?%zz=%41", "http://example.com/a/b/c"},
		{"HTTPS://EXAMPLE.com:443/%7e", ""},
		{"//[::1]:80/p q", "https://h/"},
		{"javascript:alert(1)", "http://h/"},
		{"http://bücher.example/ü?ä=ö", ""},
		{"http://a/%2e%2E/%2e./.%2E/b", ""},
		{"http://a/b|c^d`e{f}", ""},
		{"\t http://a/\n b", ""},
		{"http://0x7f.0.0.1/", ""},
		{"http://a/?q=%", ""},
		{"http://a/%%%41", ""},
		{"http://a/%2E;JSESSIONID=1/b;jsessionid=2?%55tm_x=1&&sid=0123456789abcdefA", ""},
	}
	for _, s := range seeds {
		f.Add(s.ref, s.base)
	}
	f.Fuzz(func(t *testing.T, ref, base string) {
		var b *url.URL
		if base != "" {
			var err error
			if b, err = url.Parse(base); err != nil {
				return
			}
		}
		u, err := Canonical(ref, b)
		if err != nil {
			return
		}
		s := u.String()
		if len(s) > MaxLength {
			t.Fatalf("canonical URL of %d bytes exceeds MaxLength", len(s))
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("scheme %q accepted", u.Scheme)
		}
		if u.Host == "" || u.Fragment != "" || u.User != nil {
			t.Fatalf("canonical URL %q has empty host, fragment or user info", s)
		}
		again, err := Canonical(s, nil)
		if err != nil {
			t.Fatalf("canonical URL %q does not re-canonicalise: %v", s, err)
		}
		if again.String() != s {
			t.Fatalf("not idempotent: %q -> %q", s, again.String())
		}
	})
}
