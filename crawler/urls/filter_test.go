package urls

import (
	"strings"
	"testing"
)

func TestFilters(t *testing.T) {
	must := func(f Filter, err error) Filter {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		name   string
		filter Filter
		url    string
		want   bool
	}{
		{name: "domain exact", filter: Domain("example.com"), url: "http://example.com/", want: true},
		{name: "domain subdomain", filter: Domain("example.com"), url: "http://news.example.com/a", want: true},
		{name: "domain case and dot", filter: Domain("Example.COM."), url: "http://www.example.com/", want: true},
		{name: "domain lookalike", filter: Domain("example.com"), url: "http://badexample.com/", want: false},
		{name: "domain parent", filter: Domain("news.example.com"), url: "http://example.com/", want: false},
		{name: "domain ignores port", filter: Domain("example.com"), url: "http://example.com:8080/", want: true},
		{name: "prefix match", filter: Prefix("http://example.com/news/"), url: "http://example.com/news/a", want: true},
		{name: "prefix miss", filter: Prefix("http://example.com/news/"), url: "http://example.com/blog/a", want: false},
		{name: "protocol match", filter: Protocol("https"), url: "https://example.com/", want: true},
		{name: "protocol miss", filter: Protocol("HTTPS"), url: "http://example.com/", want: false},
		{name: "regex match", filter: must(Regex(`/\d{4}/`)), url: "http://example.com/2024/a", want: true},
		{name: "regex miss", filter: must(Regex(`/\d{4}/`)), url: "http://example.com/news/a", want: false},
		{name: "and both", filter: And(Domain("example.com"), Protocol("http")), url: "http://example.com/", want: true},
		{name: "and one", filter: And(Domain("example.com"), Protocol("https")), url: "http://example.com/", want: false},
		{name: "and empty", filter: And(), url: "http://example.com/", want: true},
		{name: "or one", filter: Or(Domain("other.org"), Protocol("http")), url: "http://example.com/", want: true},
		{name: "or none", filter: Or(Domain("other.org"), Protocol("https")), url: "http://example.com/", want: false},
		{name: "or empty", filter: Or(), url: "http://example.com/", want: false},
		{name: "not", filter: Not(must(Regex(`\.pdf$`))), url: "http://example.com/a.pdf", want: false},
		{name: "not passes", filter: Not(must(Regex(`\.pdf$`))), url: "http://example.com/a.html", want: true},
		{name: "nested", filter: And(Domain("example.com"), Not(Or(Prefix("http://example.com/private"), must(Regex(`\?sessionid=`))))), url: "http://example.com/public?sessionid=1", want: false},
		{name: "regexes one of", filter: must(Regexes([]string{`^http://a\.org/`, `/news/`})), url: "http://example.com/news/x", want: true},
		{name: "regexes none", filter: must(Regexes([]string{`^http://a\.org/`, `/news/`})), url: "http://example.com/blog/x", want: false},
		{name: "regexes empty allows all", filter: must(Regexes(nil)), url: "http://example.com/blog/x", want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.filter.Match(mustParse(t, tc.url)); got != tc.want {
				t.Errorf("Match(%s) = %v, want %v", tc.url, got, tc.want)
			}
		})
	}
}

func TestRegexesErrors(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		mention  string
	}{
		{name: "syntax error names pattern", patterns: []string{`ok`, `a(b`}, mention: "a(b"},
		{name: "too long", patterns: []string{strings.Repeat("a", MaxPatternLength+1)}, mention: "exceeds"},
		{name: "too many instructions", patterns: []string{`(((a{100}){100}){100})`}, mention: "a{100}"},
		{name: "backreference unsupported", patterns: []string{`(a)\1`}, mention: "invalid escape"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Regexes(tc.patterns)
			if err == nil {
				t.Fatalf("Regexes(%q) = %v, want error", tc.patterns, f)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not mention %q", err, tc.mention)
			}
		})
	}
}

func TestRepeatsSegment(t *testing.T) {
	tests := []struct {
		name string
		url  string
		max  int
		want bool
	}{
		{name: "short", url: "http://h/a/b/c", max: 3, want: false},
		{name: "three repeats allowed", url: "http://h/a/a/a/b", max: 3, want: false},
		{name: "four repeats", url: "http://h/a/a/a/a", max: 3, want: true},
		{name: "interleaved trap", url: "http://h/x/y/x/y/x/y/x/y/page.html", max: 3, want: true},
		{name: "empty segments ignored", url: "http://h/a//a//a//", max: 3, want: false},
		{name: "max one", url: "http://h/a/b/a", max: 1, want: true},
		{name: "root", url: "http://h/", max: 3, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RepeatsSegment(mustParse(t, tc.url), tc.max); got != tc.want {
				t.Errorf("RepeatsSegment(%s, %d) = %v, want %v", tc.url, tc.max, got, tc.want)
			}
		})
	}
}

func TestDir(t *testing.T) {
	tests := []struct {
		name string
		url  string
		want string
	}{
		{name: "deep", url: "http://h/news/a/b.html", want: "/news/"},
		{name: "dir itself", url: "http://h/news/", want: "/news/"},
		{name: "file at root", url: "http://h/a.html", want: "/"},
		{name: "root", url: "http://h/", want: "/"},
		{name: "empty path", url: "http://h", want: "/"},
		{name: "query ignored", url: "http://h/a?x=/b/", want: "/"},
		{name: "escaped kept", url: "http://h/a%20b/c", want: "/a%20b/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Dir(mustParse(t, tc.url)); got != tc.want {
				t.Errorf("Dir(%s) = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
}

func FuzzRegexes(f *testing.F) {
	for _, s := range []string{`^https?://example\.com/`, `a(b`, `(a{100}){100}`, `[[:alpha:]]+\.html$`, `\pL`} {
		f.Add(s)
	}
	u := mustParse(f, "http://example.com/news/2024/a.html?x=1")
	f.Fuzz(func(t *testing.T, pattern string) {
		flt, err := Regexes([]string{pattern})
		if err != nil {
			return
		}
		if len(pattern) > MaxPatternLength {
			t.Fatalf("pattern of %d bytes accepted", len(pattern))
		}
		flt.Match(u)
	})
}
