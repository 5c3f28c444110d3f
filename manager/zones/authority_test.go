package zones

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// TestJoinGrants: the first peer holds the whole space; a second splits
// it, and its grant carries its half and the old holder's, both at a new
// epoch, every certificate signed by the manager and accepted by a
// peer's book; joining again is a move, not an error.
func TestJoinGrants(t *testing.T) {
	f := newFixture(t)
	s := openBolt(t, t.TempDir()+"/z.db")
	defer s.Close()
	a := f.authority(t, s, Options{})
	ps := peers(t, 3)
	g := must(t)(a.Join(ps[0], can.Point{0.1, 0.1, 0.1}))
	if len(g.Held) != 1 || g.Held[0].Path != "" || len(g.Others) != 0 {
		t.Fatalf("first join granted %+v, want the whole space", g)
	}
	f.clk.Add(time.Second)
	g = must(t)(a.Join(ps[1], can.Point{0.9, 0.1, 0.1}))
	verify(t, f, g, ps[1])
	if len(g.Held) != 1 || g.Held[0].Path != "1" || len(g.Others) != 1 || g.Others[0].Path != "0" || g.Others[0].Holder != ps[0] {
		t.Fatalf("second join granted held %+v, others %+v", g.Held, g.Others)
	}
	if g.Held[0].Epoch != 2 || g.Others[0].Epoch != 2 {
		t.Errorf("epochs %d and %d after the split, want 2", g.Held[0].Epoch, g.Others[0].Epoch)
	}
	if want := t0.Add(time.Second + DefaultTTL); !g.Held[0].Expiry.Equal(want) {
		t.Errorf("joiner's expiry %v, want %v", g.Held[0].Expiry, want)
	}
	book := zonecert.NewBook(f.mgr.GetPublic())
	for _, c := range append(g.Held, g.Others...) {
		if err := book.Accept(c, f.clk.Now()); err != nil {
			t.Errorf("book refused %q: %v", c.Path, err)
		}
	}
	// Joining again (a restarted client) moves the holder to the point.
	g = must(t)(a.Join(ps[1], can.Point{0.1, 0.9, 0.1}))
	verify(t, f, g, ps[1])
	if z := a.Zones(ps[1]); len(z) != 1 || !z[0].Contains(can.Point{0.1, 0.9, 0.1}) {
		t.Errorf("rejoined holder's zones %v, want one holding its new point", z)
	}
	if a.Len() != 2 {
		t.Errorf("%d holders after a rejoin, want 2", a.Len())
	}
	if _, err := a.Move(ps[2], can.Point{0.5, 0.5, 0.5}); !errors.Is(err, ErrJoinAgain) {
		t.Errorf("move of a peer that never joined: %v, want ErrJoinAgain", err)
	}
	for _, p := range []can.Point{{0.5, 0.5}, {0.5, 0.5, 1.5}, {0.5, -0.1, 0.5}} {
		if _, err := a.Join(ps[2], p); !errors.Is(err, ErrBadPoint) {
			t.Errorf("join at %v: %v, want ErrBadPoint", p, err)
		}
	}
	if err := stored(t, s).Check(); err != nil {
		t.Error(err)
	}
}

// TestRenewalWritesOnlyItsRow: renewals extend the holder's expiry and
// keep its epochs, and neither rewrite the stored map nor raise its
// version; neighbours' certificates come out of the cache.
func TestRenewalWritesOnlyItsRow(t *testing.T) {
	f := newFixture(t)
	s := openBolt(t, t.TempDir()+"/z.db")
	defer s.Close()
	a := f.authority(t, s, Options{})
	ps := peers(t, 8)
	r := rand.New(rand.NewPCG(1, 1))
	for _, p := range ps {
		must(t)(a.Join(p, point(r)))
	}
	var before []byte
	s.View(func(tx kv.Tx) error { before = bytes.Clone(tx.Bucket(Bucket).Get(keyMap)); return nil })
	writes := a.Stats().Writes
	epochs := map[can.Path]uint64{}
	for _, l := range stored(t, s).Leaves() {
		epochs[l.Path] = l.Epoch
	}
	leaves := len(epochs)
	for round := 1; round <= 3; round++ {
		f.clk.Add(10 * time.Second)
		signed := a.Stats().Signed
		for _, p := range ps {
			g := must(t)(a.Renew(p))
			verify(t, f, g, p)
			for _, c := range g.Held {
				if c.Epoch != epochs[c.Path] || !c.Expiry.Equal(f.clk.Now().Add(DefaultTTL)) {
					t.Fatalf("renewed %q epoch %d expiry %v, want epoch %d expiry %v", c.Path, c.Epoch, c.Expiry, epochs[c.Path], f.clk.Now().Add(DefaultTTL))
				}
			}
			if len(g.Others) == 0 {
				t.Fatalf("renewal of %s granted no neighbour", p)
			}
		}
		// Each leaf is signed once a round, at its holder's renewal;
		// its neighbours' grants reuse that certificate.
		if n := a.Stats().Signed - signed; n != leaves {
			t.Errorf("round %d signed %d certificates for %d leaves", round, n, leaves)
		}
	}
	var after []byte
	s.View(func(tx kv.Tx) error { after = bytes.Clone(tx.Bucket(Bucket).Get(keyMap)); return nil })
	if !bytes.Equal(before, after) || a.Stats().Writes != writes {
		t.Errorf("renewals rewrote the map (%d writes, was %d)", a.Stats().Writes, writes)
	}
	st := a.Stats()
	if st.Renewals != 24 || st.Reused == 0 {
		t.Errorf("stats %+v: want 24 renewals and certificates reused", st)
	}
	// 40 s after the joins, long past the stored map's expiries: the rows
	// keep every holder.
	if gone, err := a.Expire(); err != nil || len(gone) != 0 {
		t.Errorf("Expire after renewals removed %v, %v", gone, err)
	}
}

// TestRenewAfterExpiry: a holder that missed its renewals is refused
// with ErrJoinAgain, as is one never joined, and can join again.
func TestRenewAfterExpiry(t *testing.T) {
	stores(t, func(t *testing.T, open func() kv.Store) {
		f := newFixture(t)
		s := open()
		defer s.Close()
		a := f.authority(t, s, Options{})
		ps := peers(t, 3)
		must(t)(a.Join(ps[0], can.Point{0.2, 0.2, 0.2}))
		must(t)(a.Join(ps[1], can.Point{0.8, 0.2, 0.2}))
		f.clk.Add(20 * time.Second)
		must(t)(a.Renew(ps[0]))
		f.clk.Add(DefaultTTL - 20*time.Second) // ps[1] expires now
		tests := []struct {
			name string
			id   peer.ID
			want error
		}{
			{"expired", ps[1], ErrJoinAgain},
			{"never joined", ps[2], ErrJoinAgain},
			{"renewed in time", ps[0], nil},
		}
		for _, tc := range tests {
			_, err := a.Renew(tc.id)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
		}
		g := must(t)(a.Join(ps[1], can.Point{0.8, 0.2, 0.2}))
		if len(g.Held) == 0 || !g.Held[0].Expiry.After(f.clk.Now()) {
			t.Errorf("join after expiry granted %+v", g.Held)
		}
	})
}

// TestRestartKeepsMap: a new Authority on the same store goes on where
// the last one was: the same holders and zones, renewals granted before
// the restart still count, and certificates issued after it have higher
// epochs than any before.
func TestRestartKeepsMap(t *testing.T) {
	stores(t, func(t *testing.T, open func() kv.Store) {
		f := newFixture(t)
		s := open()
		a := f.authority(t, s, Options{})
		ps := peers(t, 10)
		r := rand.New(rand.NewPCG(2, 2))
		var top uint64
		for _, p := range ps[:8] {
			top = max(top, verify(t, f, must(t)(a.Join(p, point(r))), p))
		}
		must(t)(a.Leave(ps[3]))
		f.clk.Add(25 * time.Second)
		for _, p := range ps[:8] {
			if p != ps[3] {
				must(t)(a.Renew(p))
			}
		}
		before := stored(t, s)
		zones := map[peer.ID][]can.Zone{}
		for _, p := range a.Holders() {
			zones[p] = a.Zones(p)
		}
		s.Close()

		s = open()
		defer s.Close()
		b := f.authority(t, s, Options{})
		if !slices.Equal(b.Holders(), a.Holders()) {
			t.Fatalf("holders after restart %v, before %v", b.Holders(), a.Holders())
		}
		for p, z := range zones {
			if got := b.Zones(p); !slices.EqualFunc(got, z, func(x, y can.Zone) bool { return slices.Equal(x.Lo, y.Lo) && slices.Equal(x.Hi, y.Hi) }) {
				t.Errorf("%s's zones after restart %v, before %v", p, got, z)
			}
		}
		// The neighbours' certificates carry the renewals granted before
		// the restart, not the expiries of the stored map.
		renewed := t0.Add(25*time.Second + DefaultTTL)
		for _, c := range must(t)(b.Renew(ps[0])).Others {
			if !c.Expiry.Equal(renewed) {
				t.Errorf("after restart, neighbour %s certified until %v, want its renewal's %v", c.Holder, c.Expiry, renewed)
			}
		}
		// 35 s after the joins: only the renewals made before the
		// restart keep the holders.
		f.clk.Add(10 * time.Second)
		if gone, err := b.Expire(); err != nil || len(gone) != 0 {
			t.Fatalf("Expire after restart removed %v (%v): renewals lost", gone, err)
		}
		for _, p := range ps[:8] {
			if p != ps[3] {
				must(t)(b.Renew(p))
			}
		}
		if before.Epoch() == 0 || before.Epoch() < top {
			t.Fatalf("stored epoch %d below the granted %d", before.Epoch(), top)
		}
		g := must(t)(b.Join(ps[8], point(r)))
		if e := verify(t, f, g, ps[8]); e <= before.Epoch() {
			t.Errorf("epoch %d after the restart, not above %d before it", e, before.Epoch())
		}
		for _, c := range g.Held {
			if c.Epoch <= top {
				t.Errorf("joiner's certificate epoch %d, not above %d granted before the restart", c.Epoch, top)
			}
		}
		if err := stored(t, s).Check(); err != nil {
			t.Error(err)
		}
	})
}

// TestExpireRepairs: a holder that stops renewing is removed by Expire,
// its zones go to live heirs, no area is left unheld, and the heirs hear
// of the new zones, at a higher epoch, at their next renewal.
func TestExpireRepairs(t *testing.T) {
	stores(t, func(t *testing.T, open func() kv.Store) {
		f := newFixture(t)
		s := open()
		defer s.Close()
		a := f.authority(t, s, Options{})
		ps := peers(t, 12)
		r := rand.New(rand.NewPCG(3, 3))
		for _, p := range ps {
			must(t)(a.Join(p, point(r)))
		}
		dead := map[peer.ID]bool{ps[2]: true, ps[5]: true, ps[6]: true}
		var deadZones []can.Zone
		for p := range dead {
			deadZones = append(deadZones, a.Zones(p)...)
		}
		epoch := stored(t, s).Epoch()
		for range 3 {
			f.clk.Add(10 * time.Second)
			for _, p := range ps {
				if !dead[p] {
					must(t)(a.Renew(p))
				}
			}
			if _, err := a.Expire(); err != nil {
				t.Fatal(err)
			}
		}
		m := stored(t, s) // checked: the leaves tile the space
		for p := range dead {
			if m.Has(pid(p)) {
				t.Errorf("dead holder %s still in the map", p)
			}
		}
		if m.Len() != len(ps)-len(dead) {
			t.Errorf("%d holders, want %d", m.Len(), len(ps)-len(dead))
		}
		// Every point of the dead holders' zones is held by a live holder
		// whose renewal grants it under a new epoch.
		for _, z := range deadZones {
			c := z.Centre()
			owner, ok := a.Owner(c)
			if !ok || dead[owner] {
				t.Fatalf("point %v of a dead zone held by %v (%v)", c, owner, ok)
			}
			g := must(t)(a.Renew(owner))
			found := false
			for _, cert := range g.Held {
				if cert.Path.Zone(3).Contains(c) {
					found = true
					if cert.Epoch <= epoch {
						t.Errorf("heir's certificate %q epoch %d, not above %d", cert.Path, cert.Epoch, epoch)
					}
				}
			}
			if !found {
				t.Errorf("heir %s's renewal grants nothing holding %v", owner, c)
			}
		}
		if got := a.Stats().Expired; got != len(dead) {
			t.Errorf("Stats.Expired = %d, want %d", got, len(dead))
		}
	})
}

// TestLeaveGrantsHeirs: a graceful leave hands the zones to the heirs in
// the grant; leaving again is no error and changes nothing.
func TestLeaveGrantsHeirs(t *testing.T) {
	f := newFixture(t)
	s := openBolt(t, t.TempDir()+"/z.db")
	defer s.Close()
	a := f.authority(t, s, Options{})
	ps := peers(t, 3)
	must(t)(a.Join(ps[0], can.Point{0.2, 0.2, 0.2}))
	must(t)(a.Join(ps[1], can.Point{0.8, 0.2, 0.2}))
	must(t)(a.Join(ps[2], can.Point{0.8, 0.8, 0.2}))
	g := must(t)(a.Leave(ps[2]))
	if len(g.Held) != 0 || len(g.Others) != 1 || g.Others[0].Holder != ps[1] || g.Others[0].Path != "1" {
		t.Fatalf("leave granted held %+v others %+v, want ps[1]'s merged half", g.Held, g.Others)
	}
	writes := a.Stats().Writes
	if g, err := a.Leave(ps[2]); err != nil || len(g.Held)+len(g.Others) != 0 || a.Stats().Writes != writes {
		t.Errorf("leaving again: %+v, %v, %d writes (was %d)", g, err, a.Stats().Writes, writes)
	}
}

// TestCornerJoinsRefusedTooDeep: identities that all join at a corner of
// the box split one zone down to the depth a map keeps exact, and then are
// refused; the map stays whole, and each can leave. Before the limit, the
// 157th identity at (1, 1, 1) made a zone of width 0, and the next leave
// panicked the manager.
func TestCornerJoinsRefusedTooDeep(t *testing.T) {
	f := newFixture(t)
	s := openBolt(t, t.TempDir()+"/z.db")
	defer s.Close()
	a := f.authority(t, s, Options{})
	limit := can.DepthLimit(can.DefaultDim)
	ps := make([]peer.ID, limit+2)
	for i := range ps {
		_, ps[i] = newKey(t, uint64(5000+i))
	}
	corner := can.Point{1, 1, 1}
	for i, id := range ps {
		_, err := a.Join(id, corner)
		if i <= limit && err != nil {
			t.Fatalf("join %d: %v", i, err)
		}
		if i > limit && !errors.Is(err, ErrTooDeep) {
			t.Fatalf("join %d: %v, want ErrTooDeep", i, err)
		}
	}
	if err := stored(t, s).Check(); err != nil {
		t.Fatal(err)
	}
	for i := limit; i >= 0; i-- {
		if _, err := a.Leave(ps[i]); err != nil {
			t.Fatalf("leave %d: %v", i, err)
		}
	}
	if m := stored(t, s); m.Len() != 0 {
		t.Errorf("%d holders left", m.Len())
	}
}
