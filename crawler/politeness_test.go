package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		in   string
		want time.Duration
		ok   bool
	}{
		{"seconds", "7", 7 * time.Second, true},
		{"zero", "0", 0, true},
		{"http date", "Fri, 02 Jan 2026 03:04:35 GMT", 30 * time.Second, true},
		{"date in the past", "Fri, 02 Jan 2026 03:00:00 GMT", 0, true},
		{"huge seconds", "99999999999", 24 * time.Hour, true},
		{"negative", "-3", 0, false},
		{"junk", "soon", 0, false},
		{"empty", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := retryAfter(tc.in, now)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("retryAfter(%q) = %v, %v, want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestRobotsTag(t *testing.T) {
	for _, tc := range []struct {
		name              string
		in                []string
		noindex, nofollow bool
	}{
		{"none", nil, false, false},
		{"both", []string{"noindex, nofollow"}, true, true},
		{"none directive", []string{"NONE"}, true, true},
		{"our agent", []string{"hivecrawl: noindex"}, true, false},
		{"other agent", []string{"googlebot: nofollow"}, false, false},
		{"unavailable_after is not an agent", []string{"unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow"}, false, true},
		{"several headers", []string{"noarchive", "nofollow"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ni, nf := robotsTag(tc.in, "hivecrawl")
			if ni != tc.noindex || nf != tc.nofollow {
				t.Fatalf("robotsTag(%q) = %v, %v, want %v, %v", tc.in, ni, nf, tc.noindex, tc.nofollow)
			}
		})
	}
}

// TestResultHostAddrs: a result names the address its host answered
// from, and only its host's: the manager counts the host's leases there.
func TestResultHostAddrs(t *testing.T) {
	other := newSite(t, pages(map[string]string{"/": html("<p>elsewhere</p>")}))
	s := newSite(t, pages(map[string]string{"/": html(links("/a", other.URL+"/")), "/a": html("<p>a</p>")}))
	res, _ := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 2})
	if len(res.HostAddrs) != 1 || res.HostAddrs[0] != "127.0.0.1" {
		t.Fatalf("HostAddrs = %q, want [127.0.0.1]", res.HostAddrs)
	}
}

// TestSlowDownWithoutRetryAfter: a 429 without Retry-After stops the
// task at once, with no retry, and the result asks the manager to rest
// the host at least SlowDownRest.
func TestSlowDownWithoutRetryAfter(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, html(links("/a", "/b", "/c")))
			return
		}
		w.WriteHeader(http.StatusTooManyRequests)
	})
	s := newSite(t, mux)
	before := time.Now()
	res, _ := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	if res.Strike != task.StrikeSlowDown || !strings.Contains(res.Stopped, "429") {
		t.Fatalf("strike %q, stopped %q; want a slow-down strike", res.Strike, res.Stopped)
	}
	if n := len(s.requests("")); n != 3 {
		t.Fatalf("server saw %d requests, want robots.txt, / and the one 429: none after it", n)
	}
	if rest := res.HostRest.Sub(before); rest < SlowDownRest {
		t.Fatalf("result rests the host %v, want at least %v", rest, SlowDownRest)
	}
}

// TestDelayFactor: a host slow to answer is asked no faster than it
// answers: the wait grows to DelayFactor times its response time, and
// the result carries it to the manager.
func TestDelayFactor(t *testing.T) {
	const think = 200 * time.Millisecond
	m := map[string]string{"/": html(links("/a")), "/a": html("<p>a</p>")}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(think)
		pages(m).ServeHTTP(w, r)
	}))
	res, _ := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	hits := s.requests("")
	if len(hits) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(hits))
	}
	// The wait runs from the end of the slow answer to the next request.
	if gap := hits[2].At.Sub(hits[1].At) - think; gap < DelayFactor*think {
		t.Fatalf("next request %v after the answer, want at least %v (%d × the response time)", gap, DelayFactor*think, DelayFactor)
	}
	if time.Duration(res.HostWait) < DelayFactor*think {
		t.Fatalf("result's host wait %v, want at least %v", time.Duration(res.HostWait), DelayFactor*think)
	}
}

// TestLongCrawlDelayPaced: a Crawl-delay longer than a task waits gets
// one page a task, with the task's longest wait before it, and the
// result asks the manager to space the host's tasks by the whole delay.
func TestLongCrawlDelayPaced(t *testing.T) {
	m := map[string]string{
		"/robots.txt": "user-agent: *\ncrawl-delay: 45\n",
		"/":           html(links("/a", "/b")), "/a": html("<p>a</p>"), "/b": html("<p>b</p>"),
	}
	s := newSite(t, pages(m))
	cfg := testConfig(t)
	cfg.MaxCrawlDelay = 300 * time.Millisecond
	res, _ := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	hits := s.requests("")
	if len(hits) != 2 {
		t.Fatalf("server saw %d requests, want robots.txt and one page", len(hits))
	}
	if gap := hits[1].At.Sub(hits[0].At); gap < cfg.MaxCrawlDelay {
		t.Fatalf("page %v after robots.txt, want at least the task's longest wait %v", gap, cfg.MaxCrawlDelay)
	}
	if time.Duration(res.HostWait) != 45*time.Second || !strings.Contains(res.Stopped, "paced") {
		t.Fatalf("host wait %v, stopped %q; want 45 s and paced", time.Duration(res.HostWait), res.Stopped)
	}
}

// TestHostActivity: a Crawler tells its lease's holder every request to
// a host that ended (robots.txt included) and the wait the host asked
// for, as the crawler keeps it, so that a renewal can show the crawl
// moves while no page arrives.
func TestHostActivity(t *testing.T) {
	m := map[string]string{
		"/robots.txt": "user-agent: *\ncrawl-delay: 45\n",
		"/":           html(links("/a")), "/a": html("<p>a</p>"),
	}
	s := newSite(t, pages(m))
	cfg := testConfig(t)
	cfg.MaxCrawlDelay = 100 * time.Millisecond
	c := New(cfg)
	host := strings.TrimPrefix(s.URL, "http://")
	if a := c.HostActivity(host); a != (HostActivity{}) {
		t.Fatalf("activity before any request: %+v", a)
	}
	if _, err := c.Run(t.Context(), &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1}, &memSink{}); err != nil {
		t.Fatal(err)
	}
	a := c.HostActivity(host)
	if hits := len(s.requests("")); a.Requests != hits || hits != 2 {
		t.Fatalf("activity counts %d requests, the server saw %d (want robots.txt and one page)", a.Requests, hits)
	}
	if a.Wait != cfg.MaxCrawlDelay {
		t.Fatalf("activity's wait %v, want the host's Crawl-delay as kept, up to %v", a.Wait, cfg.MaxCrawlDelay)
	}
}

// TestStoppedRunHeedsTheAnswerInFlight: a run stopped while the host
// holds its request still reads the answer, and keeps what the host asked
// for in it (robots.txt's Crawl-delay, a 429's Retry-After): the release
// of its lease hands that on to the heir, whose first request keeps it.
// A host that never answers holds the stop StopGrace at most.
func TestStoppedRunHeedsTheAnswerInFlight(t *testing.T) {
	for _, tc := range []struct {
		name, held string
		answer     func(w http.ResponseWriter)
		want       time.Duration // the wait the host asked for, as kept
	}{
		{"robots.txt's Crawl-delay", "/robots.txt", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "user-agent: *\ncrawl-delay: 7\n")
		}, 7 * time.Second},
		{"a 429's Retry-After", "/", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "90")
			w.WriteHeader(http.StatusTooManyRequests)
		}, 90 * time.Second},
		{"a 503 without Retry-After", "/", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}, SlowDownRest},
		{"no answer", "/", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arrived, answer := make(chan struct{}), make(chan struct{})
			s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tc.held {
					pages(map[string]string{"/robots.txt": "user-agent: *\n", "/": html("<p>home</p>")}).ServeHTTP(w, r)
					return
				}
				close(arrived)
				select {
				case <-answer:
				case <-r.Context().Done():
					return
				}
				if tc.answer == nil {
					<-r.Context().Done() // never: the crawler gives up
					return
				}
				tc.answer(w)
			}))
			cfg := testConfig(t)
			cfg.MaxCrawlDelay = time.Minute
			c := New(cfg)
			ctx, stop := context.WithCancel(t.Context())
			ran := make(chan error, 1)
			go func() {
				_, err := c.Run(ctx, &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1}, &memSink{})
				ran <- err
			}()
			<-arrived
			stop()
			close(answer)
			if err := <-ran; !errors.Is(err, context.Canceled) {
				t.Fatalf("stopped run ended with %v, want it cancelled", err)
			}
			wait := c.HostActivity(strings.TrimPrefix(s.URL, "http://")).Wait
			// A rest is kept as its end: what is left of it is a little
			// less than asked.
			if wait > tc.want || wait < tc.want-30*time.Second/100 {
				t.Fatalf("the host asked for %v in the answer to the stopped run; it keeps %v", tc.want, wait)
			}
		})
	}
}
