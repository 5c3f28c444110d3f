package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/floor"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestCheckPolicy: each way a task's policy can fall under the floor is
// refused with its reason; the operator's own name and a slower wait pass.
func TestCheckPolicy(t *testing.T) {
	ok := task.Task{Delay: task.Duration(time.Second), Policy: task.Policy{UserAgent: "Examplenet/1.0 (+https://example.org/bot)", Token: "examplenet"}}
	for _, tc := range []struct {
		name string
		mod  func(*task.Task)
		want string // "" = passes
	}{
		{"the defaults", func(*task.Task) {}, ""},
		{"slower", func(t *task.Task) { t.Delay = task.Duration(3 * time.Second) }, ""},
		{"a millisecond", func(t *task.Task) { t.Delay = task.Duration(time.Millisecond) }, "wait only 1ms"},
		{"no wait", func(t *task.Task) { t.Delay = 0 }, "wait only 0s"},
		{"Googlebot", func(t *task.Task) { t.Policy.UserAgent = "Googlebot/2.1 (+http://www.google.com/bot.html)" }, `names the crawler "googlebot"`},
		{"GPTBot in the comment", func(t *task.Task) { t.Policy.UserAgent = "Mozilla/5.0 (compatible; GPTBot/1.0)" }, `names the crawler "gptbot"`},
		{"another crawler's robots.txt token", func(t *task.Task) { t.Policy.Token = "CCBot" }, `names the crawler "ccbot"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := ok
			tc.mod(&tt)
			err := checkPolicy(&tt, floor.MinDelay)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("checkPolicy = %v, want it to pass", err)
				}
				return
			}
			if !errors.Is(err, floor.ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("checkPolicy = %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}

// TestNetworkUnderTheFloorIsRefused: a real manager whose politeness wait
// (20 ms) is below the client's floor (1 s here; the loopback switch
// otherwise lifts it). Its volunteer takes none of its tasks, sends the
// web site not one request, leaves the overlay (as far as a peer with
// no neighbour can), and its status (the
// dashboard, the tray, hivecrawl status) says it is paused and why.
func TestNetworkUnderTheFloorIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 2 libp2p hosts")
	}
	ctx := context.Background()
	var requests atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><p>a page</p></body></html>"))
	}))
	t.Cleanup(site.Close)
	s := startTunedSwarm(t, 1, manager.Options{
		Schedule: manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 1, MaxPerFeedback: -1}},
	}, func(_ int, o *Options) { o.DelayFloor = time.Second })
	c := s.clients[0]
	if _, err := s.m.AddSeeds([]string{site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 90*time.Second, "the client to refuse the network", func() bool {
		st := statusOf(ctx, t, c)
		return len(st.Reasons) > 0 && strings.Contains(st.Reasons[0], "wait only 20ms")
	})
	waitFor(t, 30*time.Second, "the client to leave the overlay", func() bool {
		st := statusOf(ctx, t, c)
		// The only peer keeps its zone: there is no heir to take it.
		return st.Overlay != nil && !st.Overlay.Member
	})
	st := statusOf(ctx, t, c)
	if st.State != "paused" || !strings.HasPrefix(st.Reasons[0], "Paused: ") || !strings.Contains(st.Reasons[0], "never waits less than 1s") ||
		!strings.Contains(st.Reasons[0], "hivecrawl leave") {
		t.Errorf("state %q, reasons %q; want paused, with the wait, the floor and what to do", st.State, st.Reasons)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the web site got %d requests from a network under the floor, want none", n)
	}
	if st.Pages.Total != 0 || len(st.Tasks.Running) != 0 || st.Tasks.Queued != 0 {
		t.Errorf("%d pages, %d running, %d queued; want no task taken", st.Pages.Total, len(st.Tasks.Running), st.Tasks.Queued)
	}
}

// TestProfileWithPrivateBootstrapIsRefused: a stored profile (written by
// hand, or by an older join) whose bootstrap peer is on the volunteer's
// own network: the client starts, dials nothing, and says it is paused
// and why.
func TestProfileWithPrivateBootstrapIsRefused(t *testing.T) {
	ctx := context.Background()
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := peer.IDFromPrivateKey(k)
	prof, err := profile.New("lan", k.GetPublic(), []string{"/ip4/192.168.1.1/tcp/4901/p2p/" + id.String()})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	quietConfig(t, home, "")
	if err := profile.Write(filepath.Join(home, "config", profile.FileName), prof); err != nil {
		t.Fatal(err)
	}
	c, err := New(ctx, Options{Home: home, AllowLoopback: true, Logger: quiet,
		Network: NetworkOptions{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true}})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Serve(cctx) }()
	t.Cleanup(func() { cancel(); <-done })
	st := statusOf(ctx, t, c)
	if st.State != "paused" || len(st.Reasons) == 0 || !strings.Contains(st.Reasons[0], "192.168.1.1") ||
		!strings.Contains(st.Reasons[0], "private network range") {
		t.Fatalf("state %q, reasons %q; want paused, naming the address and its range", st.State, st.Reasons)
	}
	if n := len(c.net.h.Network().Peers()); n != 0 {
		t.Errorf("connected to %d peers, want none", n)
	}
	if st.Overlay != nil && st.Overlay.Member {
		t.Error("the client is a member of the overlay")
	}
}
