package crawler

import (
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

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delay time.Duration
		n     int
		want  time.Duration
	}{
		{"first with no delay", 0, 1, 2 * time.Second},
		{"grows", 3 * time.Second, 2, 12 * time.Second},
		{"capped", time.Second, 20, MaxRetryAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := backoff(tc.delay, tc.n); got != tc.want {
				t.Fatalf("backoff(%v, %d) = %v, want %v", tc.delay, tc.n, got, tc.want)
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
