package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestBrowserNetworkOverlay runs a manager and three real peers that join
// its network, and opens one peer's dashboard: it counts the neighbours,
// draws its zones filled and each neighbour's outlined with its short ID,
// and the Solo mode page says where seeds go instead.
func TestBrowserNetworkOverlay(t *testing.T) {
	ctx := browser(t, "")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	mctx, cancelManager := context.WithCancel(context.Background())
	m, err := manager.New(mctx, manager.Options{
		Dir: t.TempDir(), Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true, Name: "testnet",
		Schedule: manager.ScheduleOptions{Tick: 300 * time.Millisecond}, Logger: quiet,
		Politeness: manager.PolitenessOptions{PerIP: -1, PerDomain: -1, IPWait: -1}, // every fixture site is on 127.0.0.1
	})
	if err != nil {
		t.Fatal(err)
	}
	prof, err := m.WriteProfile()
	if err != nil {
		t.Fatal(err)
	}
	var mwg sync.WaitGroup
	mwg.Add(1)
	go func() { defer mwg.Done(); m.Serve(mctx) }()
	// Peers leave one at a time, each handing its zones to one still there.
	var stops []func()
	t.Cleanup(func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
		cancelManager()
		mwg.Wait()
	})
	cctx := context.Background()

	var clients []*app.Client
	for range 3 {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "config"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := profile.Write(filepath.Join(home, "config", profile.FileName), prof); err != nil {
			t.Fatal(err)
		}
		sctx, cancel := context.WithCancel(cctx)
		c, err := app.New(sctx, app.Options{
			Home: home, AllowLoopback: true, Sampler: calmSampler{}, Grace: time.Second, Version: "test", Logger: quiet,
			Network: app.NetworkOptions{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, Heartbeat: 300 * time.Millisecond},
		})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := c.Serve(sctx); err != nil {
				t.Errorf("client: %v", err)
			}
		}()
		stops = append(stops, func() { cancel(); <-done })
		clients = append(clients, c)
		// One at a time: each joins through the ones before it.
		waitFor(t, "the peer to join", func() bool {
			st, err := c.Status(cctx)
			return err == nil && st.Overlay != nil && st.Overlay.Member
		})
	}
	c := clients[0]
	var info loopback.Info
	waitFor(t, "the client's api.json", func() bool {
		info, err = loopback.ReadInfo(c.Dirs().APIFile())
		return err == nil
	})
	r := running{c: c, info: info, api: localapi.NewClient(info)}
	var st localapi.Status
	waitFor(t, "neighbours with zones", func() bool {
		st, err = c.Status(cctx)
		if err != nil || st.Overlay == nil || len(st.Overlay.Neighbours) == 0 {
			return false
		}
		for _, nb := range st.Overlay.Neighbours {
			if len(nb.Zones) == 0 {
				return false
			}
		}
		return true
	})
	signIn(t, ctx, r, "")
	// The neighbour count can still change while peers learn of each
	// other: compare with the client's status at each look.
	words := func() string {
		st, err := c.Status(cctx)
		if err != nil || st.Overlay == nil {
			return "(no status)"
		}
		return fmt.Sprintf("network testnet: %d neighbour", len(st.Overlay.Neighbours))
	}
	text(t, ctx, "peers words", `document.getElementById('peers-sub').textContent`, func(s string) bool { return strings.HasPrefix(s, words()) })
	text(t, ctx, "overlay mode", `document.getElementById('zone-mode').textContent`, func(s string) bool { return strings.HasPrefix(s, words()) })
	text(t, ctx, "own zones drawn", `String(document.querySelectorAll('#chart-zone rect.zone-own').length)`, func(s string) bool { return s != "0" })
	// Neighbours can change as peers split; the page follows the status.
	text(t, ctx, "neighbours' zones outlined", `String(document.querySelectorAll('#chart-zone rect.zone-nb').length)`, func(s string) bool {
		st, err := c.Status(cctx)
		if err != nil {
			return false
		}
		want := 0
		for _, nb := range st.Overlay.Neighbours {
			want += len(nb.Zones)
		}
		return s == fmt.Sprint(want) && want > 0
	})
	// Each neighbour's row says how this peer reaches it: on loopback,
	// directly.
	text(t, ctx, "neighbours' links", `Array.from(document.querySelectorAll('#zone-nb-body td.link')).map(td => td.textContent).join(',')`, func(s string) bool {
		return s != "" && strings.Trim(strings.ReplaceAll(s, "direct", ""), ",") == ""
	})
	nb0 := st.Overlay.Neighbours[0].Peer
	text(t, ctx, "a neighbour labelled", `Array.from(document.querySelectorAll('#chart-zone rect.zone-nb title')).map(t => t.textContent).join(' | ')`,
		func(s string) bool { return strings.Contains(s, "Neighbour "+nb0) })
	text(t, ctx, "neighbour table", `Array.from(document.querySelectorAll('#zone-nb-body tr td:first-child')).map(td => td.title).join(' ')`,
		func(s string) bool { return strings.Contains(s, nb0) })
	text(t, ctx, "share of the space", `document.getElementById('zone-share').textContent`, func(s string) bool {
		return strings.Contains(s, " of the space, in ") && !strings.HasPrefix(s, "100 %")
	})
	screenshot(t, ctx, "dashboard-network")

	if err := chromedp.Do(ctx, chromedp.Navigate(info.URL+"/#solo")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "seeds go to the manager", `document.getElementById('solo-other').hidden ? "" : document.getElementById('solo-other').textContent`,
		func(s string) bool { return strings.Contains(s, "hivecrawl seed add --manager URL") })
	text(t, ctx, "the network named", `document.getElementById('solo-intro').textContent`, func(s string) bool { return strings.Contains(s, "the network testnet") })
	screenshot(t, ctx, "solo-network")
}
