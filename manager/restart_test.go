package manager

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// TestRestartKeepsZones: the zone map is the manager's record, kept in
// its database, so a manager restarted over a running overlay does not
// start it afresh: its member renews the zone it held, and a volunteer
// joining after the restart gets half of that zone, not the whole space.
func TestRestartKeepsZones(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	dir := t.TempDir()
	newPeer := func() *host.Host {
		h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	ask := func(m *Manager, h *host.Host, req entry.Request) []zonecert.Cert {
		t.Helper()
		if err := h.Connect(ctx, m.Host().AddrInfo()); err != nil {
			t.Fatal(err)
		}
		a, err := entry.Ask(ctx, h, m.ID(), req)
		if err != nil {
			t.Fatal(err)
		}
		g, err := entry.GrantOf(req.Op, a)
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		var own []zonecert.Cert
		for _, c := range g.Certs {
			if err := c.Verify(m.PublicKey()); err != nil {
				t.Fatal(err)
			}
			if c.Holder == h.ID() {
				own = append(own, c)
			}
		}
		return own
	}

	m := newManager(t, dir, clk)
	a := newPeer()
	if held := ask(m, a, entry.Request{Op: entry.OpJoin, Point: []float64{0.2, 0.2}}); len(held) != 1 || held[0].Path != "" {
		t.Fatalf("the first member holds %+v, want the whole space", held)
	}
	m.Close()

	m = newManager(t, dir, clk)
	if held := ask(m, a, entry.Request{Op: entry.OpRenew}); len(held) != 1 || held[0].Path != "" {
		t.Fatalf("after the restart the member renewed %+v, want the whole space it held", held)
	}
	b := newPeer()
	held := ask(m, b, entry.Request{Op: entry.OpJoin, Point: []float64{0.8, 0.2}})
	if len(held) != 1 || held[0].Path == "" {
		t.Fatalf("a joiner after the restart holds %+v, want half of the member's zone", held)
	}
	if zs := m.zones.Zones(a.ID()); len(zs) != 1 {
		t.Fatalf("the member holds %v after the join, want the other half", zs)
	}
}
