package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
)

// TestWithdrawnKeyStopsAtOnce: the operator withdraws the request-signing
// key of a volunteer in the middle of a 301-page crawl. The volunteer's
// crawl sends no request after it learns of it (one already on the wire
// may land), long before its next lease renewal (every 100 s), and its
// status says it is paused and why.
func TestWithdrawnKeyStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 2 libp2p hosts")
	}
	ctx := context.Background()
	const pages = 300
	var requests atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		b.WriteString("<html><head><title>Page " + r.URL.Path + "</title></head><body><p>Text of " + r.URL.Path + ".</p>")
		if r.URL.Path == "/" {
			for i := range pages {
				fmt.Fprintf(&b, `<a href="/p/%d">page %d</a> `, i, i)
			}
		}
		b.WriteString("</body></html>")
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(site.Close)
	s := startSwarmWith(t, 1, manager.Options{
		Leases:   manager.LeaseOptions{LeaseHold: 5 * time.Minute},
		Schedule: manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 1, MaxPerFeedback: -1}},
	})
	s.waitMembers(t)
	c := s.clients[0]
	if _, err := s.m.AddSeeds([]string{site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 90*time.Second, "the crawl to be under way", func() bool { return requests.Load() >= 10 })
	if err := s.m.WithdrawKey(c.net.h.ID().String(), "2 results failed validation"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the volunteer to learn of the withdrawal", func() bool {
		st := statusOf(ctx, t, c)
		return len(st.Reasons) > 0 && strings.Contains(st.Reasons[0], "withdrew this volunteer's request-signing key (2 results failed validation)")
	})
	learned := requests.Load()
	waitFor(t, 30*time.Second, "the crawl to stop", func() bool { return len(statusOf(ctx, t, c).Tasks.Running) == 0 })
	end := requests.Load()
	if end-learned > 1 {
		t.Errorf("the site got %d requests after the volunteer learned its key was withdrawn, want at most the one on the wire", end-learned)
	}
	if end >= pages {
		t.Errorf("the site got %d requests: the crawl went on to its end", end)
	}
	if st := statusOf(ctx, t, c); st.State != "paused" || !strings.HasPrefix(st.Reasons[0], "Paused: ") {
		t.Errorf("state %q, reasons %q; want paused with the reason first", st.State, st.Reasons)
	}
	t.Logf("%d requests before the word arrived, %d after", learned, end-learned)
}
