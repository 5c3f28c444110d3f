package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// TestChallengeStopsTheTask: a WAF that turns on after a few pages (a 403
// marked cf-mitigated, a 200 asking to verify a human, a run of 403s)
// stops the task at the first answer that shows it: no request after,
// the challenge recorded as a failed page without text, and a challenge
// strike for the manager.
func TestChallengeStopsTheTask(t *testing.T) {
	for _, c := range []struct {
		name string
		waf  func(w http.ResponseWriter)
		// after is how many WAF answers the task may take: 1, or
		// BlockRun for plain refusals.
		after int
	}{
		{"cf-mitigated", func(w http.ResponseWriter) {
			w.Header().Set("cf-mitigated", "challenge")
			w.WriteHeader(http.StatusForbidden)
		}, 1},
		{"verify you are human", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, html("<h1>Please verify you are human</h1><p>Press and hold.</p>"))
		}, 1},
		{"cloudflare interstitial", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Just a moment...</title></head><body><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>`)
		}, 1},
		{"run of 403s", func(w http.ResponseWriter) { w.WriteHeader(http.StatusForbidden) }, BlockRun},
	} {
		t.Run(c.name, func(t *testing.T) {
			var served, wafd atomic.Int32
			var paths []string
			for i := range 30 {
				paths = append(paths, fmt.Sprintf("/p%d", i))
			}
			s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				if served.Add(1) > 3 {
					wafd.Add(1)
					c.waf(w)
					return
				}
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, html("<p>real text</p>"+links(paths...)))
			}))
			res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
			if res.Strike != task.StrikeChallenge || !strings.HasPrefix(res.Stopped, "challenged") {
				t.Fatalf("strike %q, stopped %q; want a challenge", res.Strike, res.Stopped)
			}
			if n := int(wafd.Load()); n != c.after {
				t.Fatalf("%d requests reached the WAF, want %d", n, c.after)
			}
			var failed int
			for _, p := range sink.pages {
				if p.Error == errChallenge {
					failed++
					if len(p.Text) != 0 || p.Title != "" {
						t.Fatalf("challenge page stored with text %q, title %q", p.Text, p.Title)
					}
				}
			}
			if failed != 1 || res.HostRest.IsZero() {
				t.Fatalf("%d challenge pages recorded, host rest %v; want 1 and a rest", failed, res.HostRest)
			}
		})
	}
}

// TestArticleAboutCaptchasIsNoChallenge: the weaker phrases count only
// in small pages.
func TestArticleAboutCaptchasIsNoChallenge(t *testing.T) {
	body := []byte(html("<p>How sites verify you are human.</p>" + strings.Repeat("<p>More about CAPTCHAs.</p>", 1000)))
	if why := challengeOf(&response{Header: http.Header{}, Body: body}); why != "" {
		t.Fatalf("a long article is taken for a challenge: %s", why)
	}
}

func FuzzChallengeOf(f *testing.F) {
	f.Add([]byte("<title>Just a moment...</title>"), "challenge")
	f.Add([]byte("plain"), "")
	f.Fuzz(func(t *testing.T, body []byte, mitigated string) {
		h := http.Header{}
		h.Set("cf-mitigated", mitigated)
		_ = challengeOf(&response{Header: h, Body: body})
	})
}
