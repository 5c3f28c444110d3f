package crawler

import (
	"net/url"
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
		{"crawl-delay capped", "user-agent: *\ncrawl-delay: 3600\n", "/", true, MaxCrawlDelay},
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

func TestProductToken(t *testing.T) {
	for in, want := range map[string]string{
		"hivecrawl":                   "hivecrawl",
		"HiveCrawl/1.0 (+https://x/)": "HiveCrawl",
		"":                            DefaultUserAgent,
		"/weird":                      DefaultUserAgent,
	} {
		if got := productToken(in); got != want {
			t.Errorf("productToken(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRobots checks that the reduced rule set decides exactly as grobotstxt
// does on the whole file, that nothing panics, and that Crawl-delay stays in
// range.
func FuzzRobots(f *testing.F) {
	f.Add("user-agent: *\ndisallow: /private\ncrawl-delay: 2\n", "/private/x")
	f.Add("user-agent: hivecrawl\nallow: /a/index.html\ndisallow: /a\n", "/a/")
	f.Add("User-agent: *\nUser-agent: hivecrawl\nDisallow: /*.php$\ncrawl-delay: 1e9\n", "/x.php")
	f.Add("useragent hivecrawl\ndisalow /%E2%82%ac\n", "/€")
	f.Fuzz(func(t *testing.T, body, path string) {
		u, err := url.Parse("http://h/" + path)
		if err != nil {
			return
		}
		r := parseRobots([]byte(body), "hivecrawl")
		if r.crawlDelay < 0 || r.crawlDelay > MaxCrawlDelay {
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
			return grobotstxt.AgentAllowed(body, "hivecrawl", u.String()), false
		}()
		if !panicked && got != want {
			t.Fatalf("reduced rules %q say %v, full file says %v for %s", r.rules, got, want, u)
		}
	})
}
