package app

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/testkit/evolve"
)

// recrawlCount counts what an evolving site saw from a live swarm.
type recrawlCount struct {
	mu sync.Mutex
	// known are the pages the site answered before, with a body or a 304.
	known map[string]bool
	// requests and bytes are every request and body byte; revisits the
	// requests for known pages, conditional those of them that carried
	// validators, and notModified the 304s.
	requests, revisits, conditional, notModified int
	bytes                                        int64
	// unconditional names a few known pages asked without validators.
	unconditional []string
}

// sizeWriter counts a response's body bytes.
type sizeWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (w *sizeWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }
func (w *sizeWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// TestLiveRecrawlConditional: a manager and a volunteer recrawl an
// evolving site (testkit/evolve; an hour of its time passes each real
// second) for 30 s under each page plan, and at least 95 % of the requests for
// pages the site answered before carry their validators. Live, before the
// manager kept a task's list of known pages past its send, the page plans
// that skip pages lost their validators: under the fountain plan 49 of
// 289 revisits were conditional. The figures per plan are logged for
// docs/developer/benchmarks.md.
func TestLiveRecrawlConditional(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a manager and a volunteer for 30 s per page plan")
	}
	for _, plan := range []string{channels.PlanAll, channels.PlanAdaptive, channels.PlanFountain} {
		t.Run(plan, func(t *testing.T) {
			start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			site := evolve.NewSite(evolve.SiteConfig{Sections: 3, PerSection: 8, Never: 0.3, MinRate: 0.02, MaxRate: 1, Horizon: 1000 * time.Hour, PageBytes: 2000, Seed: 7}, start)
			began := time.Now()
			c := &recrawlCount{known: map[string]bool{}}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				site.SetNow(start.Add(time.Since(began) * 3600))
				sw := &sizeWriter{ResponseWriter: w, status: http.StatusOK}
				site.ServeHTTP(sw, r)
				if r.URL.Path == "/robots.txt" {
					return
				}
				validators := r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != ""
				c.mu.Lock()
				defer c.mu.Unlock()
				c.requests++
				c.bytes += sw.n
				if c.known[r.URL.Path] {
					c.revisits++
					if validators {
						c.conditional++
					} else if len(c.unconditional) < 5 {
						c.unconditional = append(c.unconditional, r.URL.Path)
					}
				}
				if sw.status == http.StatusNotModified {
					c.notModified++
				}
				if sw.status == http.StatusOK || sw.status == http.StatusNotModified {
					c.known[r.URL.Path] = true
				}
			}))
			t.Cleanup(srv.Close)
			s := startSwarmWith(t, 1, manager.Options{
				Schedule: manager.ScheduleOptions{Channels: channels.Options{
					Prior: 3 * time.Second, MaxDepth: 3, MaxPerFeedback: -1, Plan: channels.PagePlan{Kind: plan},
				}},
			})
			if _, err := s.m.AddSeeds([]string{srv.URL + "/"}); err != nil {
				t.Fatal(err)
			}
			// 30 s: 30 hours of the site's time, the same for every plan.
			time.Sleep(30 * time.Second)
			s.stop()
			c.mu.Lock()
			defer c.mu.Unlock()
			share := float64(c.conditional) / float64(max(c.revisits, 1))
			t.Logf("plan %s: %d requests, %d of them for known pages, %d of those conditional (%.1f %%), %d answered 304, %d body bytes in %.0f s",
				plan, c.requests, c.revisits, c.conditional, 100*share, c.notModified, c.bytes, time.Since(began).Seconds())
			if c.revisits < 30 {
				t.Fatalf("only %d revisits of known pages in 30 s: too few rounds to judge", c.revisits)
			}
			if share < 0.95 {
				t.Fatalf("%d of %d revisits of known pages were conditional (%.1f %%, want ≥ 95 %%); unconditional ones: %v",
					c.conditional, c.revisits, 100*share, c.unconditional)
			}
		})
	}
}
