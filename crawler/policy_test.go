package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// TestOperatorDelayIsAFloor: a volunteer's 1 ms cannot beat the task's
// 200 ms, between any two requests of the run, robots.txt and the first
// page and the hops of a redirect included.
func TestOperatorDelayIsAFloor(t *testing.T) {
	const delay = 200 * time.Millisecond
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/moved", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/", http.StatusFound)
	})
	mux.Handle("/", pages(map[string]string{"/": html(links("/a")), "/a": html("a"),
		"/robots.txt": "user-agent: *\nallow: /\n"}))
	s := newSite(t, mux)
	cfg := testConfig(t)
	cfg.Delay = time.Millisecond
	res, _ := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/start"}, MaxDepth: 1, Delay: task.Duration(delay)})
	var paths []string
	for _, h := range s.requests("") {
		paths = append(paths, h.Path)
	}
	if want := "[/robots.txt /start /moved / /a]"; fmt.Sprint(paths) != want {
		t.Fatalf("requests %v, want %s", paths, want)
	}
	// Server-side timestamps of request starts; a lower bound only.
	if gap := spacing(s.requests("")); gap < delay {
		t.Fatalf("requests %v apart, want at least the task's %v", gap, delay)
	}
	if res.Stats.PagesFetched != 2 {
		t.Fatalf("fetched %d pages, want 2", res.Stats.PagesFetched)
	}
}

// TestOperatorNamesTheCrawler: the task's User-Agent is the header sent and
// its token picks the robots.txt group, whatever the volunteer configured.
func TestOperatorNamesTheCrawler(t *testing.T) {
	const (
		robots = "User-agent: Googlebot\nAllow: /\n\n" +
			"User-agent: hivecrawl\nDisallow: /private\n\n" +
			"User-agent: examplebot\nDisallow: /open\n"
		operatorUA = "Hivecrawl/1.4 (+https://operator.example/bot)"
		googlebot  = "Googlebot/2.1 (+http://www.google.com/bot.html)"
	)
	for _, tc := range []struct {
		name     string
		configUA string
		policy   task.Policy
		wantUA   string
		fetched  []string
	}{
		{"policy user agent and token", googlebot,
			task.Policy{UserAgent: operatorUA, Token: "hivecrawl"}, operatorUA, []string{"/", "/open"}},
		{"token from the policy user agent", googlebot,
			task.Policy{UserAgent: operatorUA}, operatorUA, []string{"/", "/open"}},
		{"policy token other than the user agent's", googlebot,
			task.Policy{UserAgent: operatorUA, Token: "examplebot"}, operatorUA, []string{"/", "/private"}},
		{"no policy: the configured default", "",
			task.Policy{}, DefaultUserAgent, []string{"/", "/open"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, pages(map[string]string{"/robots.txt": robots,
				"/": html(links("/open", "/private")), "/open": html("o"), "/private": html("p")}))
			cfg := testConfig(t)
			cfg.UserAgent = tc.configUA
			runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1, Policy: tc.policy})
			var got []string
			for _, h := range s.requests("") {
				if ua := h.Hdr.Get("User-Agent"); ua != tc.wantUA {
					t.Errorf("%s sent User-Agent %q, want %q", h.Path, ua, tc.wantUA)
				}
				if h.Path != "/robots.txt" {
					got = append(got, h.Path)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.fetched) {
				t.Fatalf("fetched %v, want %v", got, tc.fetched)
			}
		})
	}
}

func TestPolicyFor(t *testing.T) {
	base := Config{UserAgent: "Vol/1 (+https://v.example)", Delay: time.Second}
	for _, tc := range []struct {
		name  string
		cfg   Config
		task  task.Task
		want  policy
		error string
	}{
		{"configuration alone", base, task.Task{},
			policy{"Vol/1 (+https://v.example)", "Vol", time.Second, DefaultMaxPages}, ""},
		{"task wait is a floor", base, task.Task{Delay: task.Duration(3 * time.Second)},
			policy{"Vol/1 (+https://v.example)", "Vol", 3 * time.Second, DefaultMaxPages}, ""},
		{"volunteer wait can only add", base, task.Task{Delay: task.Duration(time.Millisecond)},
			policy{"Vol/1 (+https://v.example)", "Vol", time.Second, DefaultMaxPages}, ""},
		{"no wait set anywhere", Config{UserAgent: "V"}, task.Task{},
			policy{"V", "V", DefaultDelay, DefaultMaxPages}, ""},
		{"no wait of its own", Config{UserAgent: "V"}, task.Task{Delay: task.Duration(40 * time.Millisecond)},
			policy{"V", "V", 40 * time.Millisecond, DefaultMaxPages}, ""},
		{"no wait at all (tests)", Config{UserAgent: "V", NoDelay: true}, task.Task{},
			policy{"V", "V", 0, DefaultMaxPages}, ""},
		{"fewer pages of the two", Config{UserAgent: "V", NoDelay: true, MaxPages: 50}, task.Task{MaxPages: 80},
			policy{"V", "V", 0, 50}, ""},
		{"task pages under the cap", Config{UserAgent: "V", NoDelay: true, MaxPages: 50}, task.Task{MaxPages: 20},
			policy{"V", "V", 0, 20}, ""},
		{"task pages without a cap", Config{UserAgent: "V", NoDelay: true}, task.Task{MaxPages: 20000},
			policy{"V", "V", 0, 20000}, ""},
		{"cap when the task sets none", Config{UserAgent: "V", NoDelay: true, MaxPages: 50}, task.Task{},
			policy{"V", "V", 0, 50}, ""},
		{"operator's name", base, task.Task{Policy: task.Policy{UserAgent: "Hivecrawl/1.4 (+https://o.example)", Token: "hivecrawl"}},
			policy{"Hivecrawl/1.4 (+https://o.example)", "hivecrawl", time.Second, DefaultMaxPages}, ""},
		{"header injection refused", base, task.Task{Policy: task.Policy{UserAgent: "Hivecrawl/1\r\nX-Evil: 1"}}, policy{}, "user agent"},
		{"user agent without a token refused", base, task.Task{Policy: task.Policy{UserAgent: "/1.0"}}, policy{}, "user agent"},
		{"token with a space refused", base, task.Task{Policy: task.Policy{Token: "hive crawl"}}, policy{}, "token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := policyFor(&tc.cfg, &tc.task)
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Fatalf("err = %v, want one about %s", err, tc.error)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("policyFor = %+v, %v, want %+v", got, err, tc.want)
			}
		})
	}
}

// TestPolitenessAcrossRuns: the wait holds from one run's last request to
// the next run's first on the same host, and between runs that overlap on
// one host, which then take turns.
func TestPolitenessAcrossRuns(t *testing.T) {
	const delay = 150 * time.Millisecond
	for _, tc := range []struct {
		name       string
		overlapped bool
	}{
		{"back to back", false},
		{"overlapping", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, pages(map[string]string{"/": html(links("/a")), "/a": html("a")}))
			c := New(testConfig(t))
			run := func(id string) error {
				res, err := c.Run(context.Background(), &task.Task{ID: id, Seeds: []string{s.URL + "/"}, MaxDepth: 1, Delay: task.Duration(delay)}, &memSink{})
				if err == nil && res.Stats.PagesFetched != 2 {
					err = fmt.Errorf("run %s fetched %d pages, want 2", id, res.Stats.PagesFetched)
				}
				return err
			}
			if tc.overlapped {
				errs := make(chan error, 2)
				for _, id := range []string{"one", "two"} {
					go func() { errs <- run(id) }()
				}
				for range 2 {
					if err := <-errs; err != nil {
						t.Fatal(err)
					}
				}
			} else {
				for _, id := range []string{"one", "two"} {
					if err := run(id); err != nil {
						t.Fatal(err)
					}
				}
			}
			hits := s.requests("")
			if len(hits) != 6 {
				t.Fatalf("server saw %d requests, want 6", len(hits))
			}
			if gap := spacing(hits); gap < delay {
				t.Fatalf("requests %v apart, want at least %v", gap, delay)
			}
		})
	}
}

// TestHostAsksCarryAcrossRuns: what a host asked of one run (robots.txt
// Crawl-delay, Retry-After) binds the crawler's next run on it too: the
// next piece or round of a channel runs on the same crawler, from its
// robots.txt request on.
func TestHostAsksCarryAcrossRuns(t *testing.T) {
	t.Run("crawl-delay", func(t *testing.T) {
		const asked = 400 * time.Millisecond
		mux := http.NewServeMux()
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.4\n")
		})
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, html("home")) })
		s := newSite(t, mux)
		c := New(testConfig(t))
		for _, id := range []string{"one", "two"} {
			res, err := c.Run(context.Background(), &task.Task{ID: id, Seeds: []string{s.URL + "/"}, Delay: task.Duration(10 * time.Millisecond)}, &memSink{})
			if err != nil {
				t.Fatal(err)
			}
			if time.Duration(res.HostWait) != asked { // for the manager, which spaces crawlers
				t.Fatalf("result says the host asked for %v; want %v", time.Duration(res.HostWait), asked)
			}
		}
		hits := s.requests("")
		if len(hits) != 4 {
			t.Fatalf("server saw %d requests, want robots.txt and the page twice", len(hits))
		}
		if gap := spacing(hits); gap < asked {
			t.Fatalf("requests %v apart, want at least the Crawl-delay %v", gap, asked)
		}
	})
	t.Run("retry-after", func(t *testing.T) {
		var turnedAway atomic.Bool
		mux := http.NewServeMux()
		mux.HandleFunc("/robots.txt", http.NotFound)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			if turnedAway.CompareAndSwap(false, true) {
				w.Header().Set("Retry-After", "3600")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, html("home"))
		})
		s := newSite(t, mux)
		c := New(testConfig(t))
		var stopped []string
		for _, id := range []string{"one", "two"} {
			res, err := c.Run(context.Background(), &task.Task{ID: id, Seeds: []string{s.URL + "/"}, Delay: task.Duration(10 * time.Millisecond)}, &memSink{})
			if err != nil {
				t.Fatal(err)
			}
			stopped = append(stopped, res.Stopped)
			if time.Until(res.HostRest) < 59*time.Minute {
				t.Fatalf("result says the host rests until %v; want about an hour from now", res.HostRest)
			}
		}
		if n := len(s.requests("")); n != 2 {
			t.Fatalf("server saw %d requests, want robots.txt and the one turned away: the next run must wait the hour", n)
		}
		if !strings.HasPrefix(stopped[1], "server asked to retry after") {
			t.Fatalf("second run stopped %q; want the host's rest named", stopped[1])
		}
	})
}

// TestResumedRunKeepsTheWait: a run resumed from a checkpoint after a
// restart (a new Crawler, whose host clock knows nothing) keeps the wait
// the crawl had learned, Crawl-delay included, from its first request on:
// the crawl it goes on from may have sent its last request just before.
func TestResumedRunKeepsTheWait(t *testing.T) {
	const asked = 400 * time.Millisecond
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.4\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, html(links("/a", "/b", "/c")))
	})
	s := newSite(t, mux)
	tk := &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1, Delay: task.Duration(10 * time.Millisecond)}
	var saved *Progress
	crash := errors.New("killed")
	_, err := New(testConfig(t)).RunFrom(context.Background(), tk, &memSink{}, RunOptions{Every: 1, Checkpoint: func(p *Progress) error {
		saved = p
		return crash // the process dies right after its first checkpoint
	}})
	if !errors.Is(err, crash) || saved == nil {
		t.Fatalf("first run = %v, checkpoint %v; want it killed after one", err, saved != nil)
	}
	before := len(s.requests(""))
	if _, err := New(testConfig(t)).RunFrom(context.Background(), tk, &memSink{}, RunOptions{Resume: saved}); err != nil {
		t.Fatal(err)
	}
	hits := s.requests("")
	if len(hits) <= before {
		t.Fatalf("the resumed run sent nothing")
	}
	if gap := hits[before].At.Sub(hits[before-1].At); gap < asked {
		t.Fatalf("the resumed run's first request came %v after the last one; want the Crawl-delay %v", gap, asked)
	}
}
