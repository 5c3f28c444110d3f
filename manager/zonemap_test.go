package manager

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/testkit/pgtest"
)

// joinZone has a new libp2p host join the manager's zone map at p and
// returns it with the certificates it was granted.
func joinZone(ctx context.Context, t *testing.T, m *Manager, p can.Point) (*host.Host, []zonecert.Cert) {
	t.Helper()
	h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.Connect(ctx, m.Host().AddrInfo()); err != nil {
		t.Fatal(err)
	}
	a, err := entry.Ask(ctx, h, m.ID(), entry.Request{Op: entry.OpJoin, Point: p})
	if err != nil {
		t.Fatal(err)
	}
	if a.Refused != "" {
		t.Fatalf("join refused: %s", a.Refused)
	}
	var cs []zonecert.Cert
	for _, raw := range a.Certs {
		c, err := zonecert.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Verify(m.PublicKey()); err != nil {
			t.Fatalf("certificate not signed with the manager's key: %v", err)
		}
		cs = append(cs, c)
	}
	return h, cs
}

// TestZoneMapWired: the manager certifies zones with its own key, in the
// space of its submissions' dimension; the swarm view and the hashing
// baseline take the holders and zones from the map; the map survives a
// restart; and Serve hands the zones of a member that stops renewing to
// its heir.
func TestZoneMapWired(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	clk := &clock{t: time.Now().UTC()}
	m := newManager(t, dir, clk)
	a, ca := joinZone(ctx, t, m, can.Point{0.2, 0.2})
	b, _ := joinZone(ctx, t, m, can.Point{0.8, 0.2})
	if len(ca) != 1 || ca[0].Holder != a.ID() {
		t.Fatalf("first join certified %+v", ca)
	}
	sw, err := m.swarm()
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Peers) != 2 {
		t.Fatalf("swarm view peers %+v, want the two holders", sw.Peers)
	}
	for _, p := range sw.Peers {
		if len(p.Zones) != 1 || p.Zones[0].Hi[0]-p.Zones[0].Lo[0] != 0.5 {
			t.Errorf("swarm view shows %s with zones %+v, want its half", p.ID, p.Zones)
		}
	}
	id, pt, ok := m.hashDirect("example.com:80")
	if !ok || (id != a.ID() && id != b.ID()) {
		t.Fatalf("hashing baseline chose %s, %v", id, ok)
	}
	if owner, _ := m.zones.Owner(pt); owner != id {
		t.Errorf("hashing baseline aims at %v, held by %s, not its choice %s", pt, owner, id)
	}
	m.Close()

	m = newManager(t, dir, clk)
	if got := m.zones.Holders(); len(got) != 2 || !slices.Contains(got, a.ID()) || !slices.Contains(got, b.ID()) {
		t.Fatalf("holders after a restart: %v", got)
	}
	// b renews through the restarted manager; a does not and is expired
	// by Serve, which hands its half to b.
	if err := b.Connect(ctx, m.Host().AddrInfo()); err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- m.Serve(sctx) }()
	defer func() { stop(); <-served }()
	for range 4 {
		clk.add(entry.RenewEvery)
		ans, err := entry.Ask(ctx, b, m.ID(), entry.Request{Op: entry.OpRenew})
		if err != nil || ans.Refused != "" {
			t.Fatalf("renewal: %+v, %v", ans, err)
		}
	}
	waitFor(t, func() bool { return m.zones.Len() == 1 })
	if z := m.zones.Zones(b.ID()); len(z) != 1 || z[0].Volume() != 1 {
		t.Errorf("b holds %v after a expired, want the whole space", z)
	}
}

// TestZoneMapShared: two managers of one PostgreSQL database serve one
// zone map: a peer that joined through one is certified as the other's
// neighbour by the other.
func TestZoneMapShared(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dsn := pgtest.Start(t).DSN
	clk := &clock{t: time.Now().UTC()}
	m1 := newSharedManager(t, t.TempDir(), dsn, "", clk)
	m2 := newSharedManager(t, t.TempDir(), dsn, filepath.Join(m1.Dir(), KeyFile), clk)
	a, _ := joinZone(ctx, t, m1, can.Point{0.2, 0.2})
	_, cs := joinZone(ctx, t, m2, can.Point{0.8, 0.2})
	if len(cs) != 2 || cs[1].Holder != a.ID() || cs[0].Epoch != 2 {
		t.Fatalf("join through the second manager certified %+v, want its half and a's at epoch 2", cs)
	}
	if m1.zones.Len() != 1 {
		t.Fatalf("the first manager's view before it read the database: %d holders", m1.zones.Len())
	}
	if _, err := m1.zones.Expire(); err != nil {
		t.Fatal(err)
	}
	if m1.zones.Len() != 2 {
		t.Errorf("the first manager's view after reading the database: %d holders", m1.zones.Len())
	}
}
