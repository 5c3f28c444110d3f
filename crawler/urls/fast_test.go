package urls

import (
	"net/url"
	"testing"
)

func TestFastResolveCoversCommonLinks(t *testing.T) {
	r, err := NewResolver(mustParse(t, "http://example.com/dir/page.html?x=1"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ref, want string
		fast            bool
	}{
		{name: "root relative", ref: "/news/a.html", want: "http://example.com/news/a.html", fast: true},
		{name: "relative", ref: "b.html", want: "http://example.com/dir/b.html", fast: true},
		{name: "relative dir", ref: "sub/b", want: "http://example.com/dir/sub/b", fast: true},
		{name: "query only", ref: "?page=2", want: "http://example.com/dir/page.html?page=2", fast: true},
		{name: "empty query kept", ref: "/a?", want: "http://example.com/a?", fast: true},
		{name: "same origin absolute", ref: "http://example.com/a?b=c&d", want: "http://example.com/a?b=c&d", fast: true},
		{name: "colon in path", ref: "/wiki/Special:Random", want: "http://example.com/wiki/Special:Random", fast: true},
		{name: "other host", ref: "http://other.org/a", want: "http://other.org/a"},
		{name: "scheme relative", ref: "//other.org/a", want: "http://other.org/a"},
		{name: "dot segment", ref: "../a", want: "http://example.com/a"},
		{name: "escape", ref: "/a%7e", want: "http://example.com/a~"},
		{name: "fragment", ref: "/a#b", want: "http://example.com/a"},
		{name: "scheme", ref: "mailto:x@y", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, fast := r.fastResolve(tc.ref)
			if fast != tc.fast {
				t.Errorf("fast path taken = %v, want %v", fast, tc.fast)
			}
			u, err := r.Resolve(tc.ref)
			got := ""
			if err == nil {
				got = u.String()
			}
			if got != tc.want {
				t.Errorf("Resolve(%q) = %q (%v), want %q", tc.ref, got, err, tc.want)
			}
		})
	}
}

// FuzzFastResolve checks that the fast path agrees with the full WHATWG
// parser whenever it answers.
func FuzzFastResolve(f *testing.F) {
	for _, s := range [][2]string{
		{"/a/b?c=d", "http://example.com/x/y"},
		{"b/c;d=e", "https://example.com:8443/x/y?q"},
		{"?x", "http://example.com/"},
		{"http://example.com/z", "http://example.com/"},
		{"a:b", "http://example.com/"},
		{"./a", "http://example.com/a%20b/c"},
		{"...", "http://h/a/b"},
		{"b;jsessionid=1?fbclid=2&x", "http://example.com/a;jsessionid=z?utm_x=1"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, ref, base string) {
		b, err := url.Parse(base)
		if err != nil {
			return
		}
		r, err := NewResolver(b)
		if err != nil {
			return
		}
		fast, ok := r.fastResolve(ref)
		if !ok {
			return
		}
		slow, err := r.resolve(ref)
		if err != nil {
			t.Fatalf("fast path resolved %q against %q to %q; full parser: %v", ref, base, fast, err)
		}
		if fast.String() != slow.String() {
			t.Fatalf("%q against %q: fast %q, full %q", ref, base, fast, slow)
		}
		if *fast != *slow {
			t.Fatalf("%q against %q: fast %#v, full %#v", ref, base, fast, slow)
		}
	})
}
