package crawler

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRobotsForStatus(t *testing.T) {
	body := []byte("user-agent: *\ndisallow: /private/\n")
	for _, tc := range []struct {
		name          string
		status        int
		open, private bool
	}{
		{"200 with rules", 200, true, false},
		{"404 allows all", 404, true, true},
		{"403 allows all", 403, true, true},
		{"429 disallows all", 429, false, false},
		{"500 disallows all", 500, false, false},
		{"503 disallows all", 503, false, false},
		{"unreachable disallows all", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := robotsForStatus(tc.status, body, "hivecrawl")
			if got := r.allowed(mustURL(t, "http://h/open")); got != tc.open {
				t.Errorf("allowed(/open) = %v, want %v", got, tc.open)
			}
			if got := r.allowed(mustURL(t, "http://h/private/x")); got != tc.private {
				t.Errorf("allowed(/private/x) = %v, want %v", got, tc.private)
			}
		})
	}
}

func TestRobotsGroups(t *testing.T) {
	for _, tc := range []struct {
		name  string
		body  string
		path  string
		want  bool
		delay time.Duration
	}{
		{"specific group hides global", "user-agent: *\ndisallow: /\n\nuser-agent: hivecrawl\ndisallow: /x\n", "/y", true, 0},
		{"specific disallow", "user-agent: *\ndisallow: /\n\nuser-agent: hivecrawl\ndisallow: /x\n", "/x/1", false, 0},
		{"global applies", "user-agent: other\ndisallow: /\n\nuser-agent: *\ndisallow: /a\n", "/a", false, 0},
		{"longest match wins", "user-agent: *\ndisallow: /a\nallow: /a/b\n", "/a/b/c", true, 0},
		{"wildcard and end anchor", "user-agent: *\ndisallow: /*.pdf$\n", "/doc.pdf", false, 0},
		{"empty disallow", "user-agent: *\ndisallow:\n", "/a", true, 0},
		{"agent with version", "user-agent: HiveCrawl/2.0\ndisallow: /\n", "/a", false, 0},
		{"crawl-delay global", "user-agent: *\ncrawl-delay: 2.5\n", "/", true, 2500 * time.Millisecond},
		{"crawl-delay specific over global", "user-agent: *\ncrawl-delay: 9\n\nuser-agent: hivecrawl\ncrawl-delay: 3\n", "/", true, 3 * time.Second},
		{"crawl-delay other agent ignored", "user-agent: other\ncrawl-delay: 9\n", "/", true, 0},
		{"crawl-delay of an hour kept", "user-agent: *\ncrawl-delay: 3600\n", "/", true, time.Hour},
		{"crawl-delay capped", "user-agent: *\ncrawl-delay: 99999999\n", "/", true, MaxAskedDelay},
		{"crawl-delay junk ignored", "user-agent: *\ncrawl-delay: soon\ncrawl-delay: -4\n", "/", true, 0},
		{"rules before any agent ignored", "disallow: /\n", "/a", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := parseRobots([]byte(tc.body), "hivecrawl")
			if got := r.allowed(mustURL(t, "http://h"+tc.path)); got != tc.want {
				t.Errorf("allowed(%s) = %v, want %v", tc.path, got, tc.want)
			}
			if r.crawlDelay != tc.delay {
				t.Errorf("crawl delay = %v, want %v", r.crawlDelay, tc.delay)
			}
		})
	}
}

// TestRobotsPercentEncoding checks RFC 9309 §2.2.2: a rule and a URL
// that spell the same octets differently still meet, and %2F stays apart
// from "/".
func TestRobotsPercentEncoding(t *testing.T) {
	for _, tc := range []struct {
		name, rule, path string
		want             bool
	}{
		{"encoded unreserved in the rule", "/%7Ejoe/", "/~joe/index.html", false},
		{"encoded unreserved in the path", "/~joe/", "/%7Ejoe/index.html", false},
		{"encoded letters in the rule", "/foo/bar/%62%61%7A", "/foo/bar/baz", false},
		{"encoded unreserved in the query", "/*?q=%7E", "/s?q=~", false},
		{"lower-case hex in the rule", "/a%3cd", "/a%3Cd", false},
		{"lower-case hex in the path", "/a%3Cd", "/a%3cd", false},
		{"non-ASCII rule, encoded path", "/foo/bär", "/foo/b%C3%A4r", false},
		{"non-ASCII rule, lower-case encoded path", "/foo/bär", "/foo/b%c3%a4r", false},
		{"encoded rule, non-ASCII path", "/foo/b%c3%a4r", "/foo/bär", false},
		{"escape beside non-ASCII in the rule", "/bär/%3C", "/b%C3%A4r/%3C", false},
		{"space in the rule", "/a b", "/a%20b", false},
		{"encoded slash in the rule is not a slash", "/a%2Fb", "/a/b", true},
		{"encoded slash in the path is not a slash", "/a/b", "/a%2Fb", true},
		{"encoded slash meets encoded slash", "/a%2fb", "/a%2Fb", false},
		{"encoded wildcard is literal", "/a%2Ab", "/axb", true},
		{"wildcard still matches", "/a*b", "/a%C3%A4b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := parseRobots([]byte("user-agent: *\ndisallow: "+tc.rule+"\n"), "hivecrawl")
			if got := r.allowed(mustURL(t, "http://h"+tc.path)); got != tc.want {
				t.Errorf("disallow %s: allowed(%s) = %v, want %v (rules %q)", tc.rule, tc.path, got, tc.want, r.rules)
			}
		})
	}
}

func TestRobotsPath(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"clean", "/a/b?c=d&e", "/a/b?c=d&e"},
		{"unreserved decoded", "/%7e%41%2D%2e%5F", "/~A-._"},
		{"reserved kept, hex upper-cased", "/a%2fb%3a%3F", "/a%2Fb%3A%3F"},
		{"non-ASCII encoded", "/bär", "/b%C3%A4r"},
		{"URI-illegal ASCII encoded", "/a b\"<>{|}^`\\#", "/a%20b%22%3C%3E%7B%7C%7D%5E%60%5C%23"},
		{"stray percent encoded", "/100%/%4", "/100%25/%254"},
		{"wildcard and anchor kept", "/*.pdf$", "/*.pdf$"},
		{"control encoded", "/a\x00\x7f", "/a%00%7F"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := robotsPath(tc.in)
			if got != tc.want {
				t.Errorf("robotsPath(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := robotsPath(got); again != got {
				t.Errorf("robotsPath is not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestProductToken(t *testing.T) {
	for in, want := range map[string]string{
		"hivecrawl":                   "hivecrawl",
		"HiveCrawl/1.0 (+https://x/)": "HiveCrawl",
		"":                            ProductToken,
		"/weird":                      ProductToken,
		DefaultUserAgent:              "Hivecrawl",
	} {
		if got := productToken(in); got != want {
			t.Errorf("productToken(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRobots checks that the reduced rule set decides exactly as
// grobotstxt does on the whole file once both spell paths as robotsPath
// does (RFC 9309 §2.2.2), that nothing panics, that Crawl-delay stays in
// range, and that robotsPath is idempotent and leaves only octets a URI
// may hold.
func FuzzRobots(f *testing.F) {
	f.Add("user-agent: *\ndisallow: /private\ncrawl-delay: 2\n", "/private/x")
	f.Add("user-agent: hivecrawl\nallow: /a/index.html\ndisallow: /a\n", "/a/")
	f.Add("User-agent: *\nUser-agent: hivecrawl\nDisallow: /*.php$\ncrawl-delay: 1e9\n", "/x.php")
	f.Add("useragent hivecrawl\ndisalow /%E2%82%ac\n", "/€")
	f.Add("user-agent: *\ndisallow: /%7Ejoe/\nallow: /a%3cd\ndisallow: /foo/bär/%2f\n", "/~joe/x")
	f.Add("user-agent: hivecrawl\ndisallow: /a%2Fb\nallow: /a b\n", "/a%2fb?q=%7e")
	f.Fuzz(func(t *testing.T, body, path string) {
		if p := robotsPath(path); robotsPath(p) != p || !robotsPathClean(p) {
			t.Fatalf("robotsPath(%q) = %q is not in its own spelling", path, p)
		}
		u, err := url.Parse("http://h/" + path)
		if err != nil {
			return
		}
		r := parseRobots([]byte(body), "hivecrawl")
		if r.crawlDelay < 0 || r.crawlDelay > MaxAskedDelay {
			t.Fatalf("crawl delay %v out of range", r.crawlDelay)
		}
		got := r.allowed(u)
		if r.mode != robotsRules {
			return // the full parse panicked; nothing to compare with
		}
		want, panicked := func() (ok, panicked bool) {
			defer func() {
				if recover() != nil {
					panicked = true
				}
			}()
			return grobotstxt.AgentAllowed(normalisedRobots(body), "hivecrawl", "http://h"+robotsPathOf(u)), false
		}()
		if !panicked && got != want {
			t.Fatalf("reduced rules %q say %v, full file says %v for %s", r.rules, got, want, u)
		}
	})
}

// normalisedRobots rewrites a whole robots.txt as grobotstxt reads it,
// every group kept and every rule's path in robotsPath's spelling: the
// full-file reference the reduced rules are checked against.
func normalisedRobots(body string) string {
	w := &robotsWriter{}
	grobotstxt.Parse(body, w)
	return w.String()
}

type robotsWriter struct{ strings.Builder }

func (w *robotsWriter) HandleRobotsStart()                      {}
func (w *robotsWriter) HandleRobotsEnd()                        {}
func (w *robotsWriter) HandleSitemap(int, string)               {}
func (w *robotsWriter) HandleUnknownAction(int, string, string) {}
func (w *robotsWriter) HandleUserAgent(_ int, v string)         { w.WriteString("user-agent: " + v + "\n") }
func (w *robotsWriter) HandleAllow(_ int, v string) {
	w.WriteString("allow: " + robotsPath(unmangleEscapes(v)) + "\n")
}
func (w *robotsWriter) HandleDisallow(_ int, v string) {
	w.WriteString("disallow: " + robotsPath(unmangleEscapes(v)) + "\n")
}
