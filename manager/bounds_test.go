package manager

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// settledMembers are n members spread along the first axis from lo to hi
// milliseconds, settled as a trainer wants.
func settledMembers(n int, lo, hi float64) []members.Member {
	out := make([]members.Member, n)
	for i := range out {
		x := lo + (hi-lo)*float64(i)/float64(n-1)
		out[i] = members.Member{ID: peer.ID(fmt.Sprint(i)), Coord: []float64{x, x / 2, -x}, CoordError: 0.2, Samples: settledSamples}
	}
	return out
}

func newCoordManager(t *testing.T, dir string, clk *clock) *Manager {
	t.Helper()
	b := DefaultBounds
	return newManagerWith(t, dir, clk, func(o *Options) { o.Bounds = &b })
}

// TestBoundsTrainedFromMembers: the manager trains the CAN space's bounds
// from its members' settled coordinates (5 % trimmed each side), not
// before enough have settled; it retrains only when the swarm has moved
// by a quarter of the box and ten minutes have passed; the signed record
// rides on every entry answer; and a restarted manager keeps its bounds.
func TestBoundsTrainedFromMembers(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	m := newCoordManager(t, dir, clk)

	young := settledMembers(40, -50, 50)
	for i := range 20 {
		young[i].Samples = 10 // half the swarm still settling
	}
	if changed, err := m.bounds.maybeTrain(clk.now(), young); err != nil || changed {
		t.Fatalf("trained with half the members unsettled: %v, %v", changed, err)
	}
	if a := m.members.Answer(peer.ID("asker"), entry.Request{}); len(a.Bounds) != 0 {
		t.Fatal("an entry answer carries bounds before any were trained")
	}

	clk.add(boundsCheckEvery)
	if changed, err := m.bounds.maybeTrain(clk.now(), settledMembers(40, -50, 50)); err != nil || !changed {
		t.Fatalf("not trained from 40 settled members: %v, %v", changed, err)
	}
	cur := m.bounds.Current()
	// 40 values, 5 % cut each side: the 3rd lowest and highest remain.
	step := 100.0 / 39
	if cur.Epoch != 1 || !near(cur.Bounds.Lo[0], -50+2*step) || !near(cur.Bounds.Hi[0], 50-2*step) {
		t.Fatalf("trained bounds %+v, want epoch 1 and x in [%.2f, %.2f]", cur, -50+2*step, 50-2*step)
	}
	a := m.members.Answer(peer.ID("asker"), entry.Request{})
	got, err := envelope.OpenBounds(a.Bounds, m.PublicKey())
	if err != nil || got.Epoch != 1 {
		t.Fatalf("entry answer's bounds: %+v, %v", got, err)
	}

	// A swarm that moved a little, or a lot but too soon, keeps the box.
	clk.add(retrainEvery)
	if changed, _ := m.bounds.maybeTrain(clk.now(), settledMembers(40, -55, 55)); changed {
		t.Fatal("retrained after a 5 % move")
	}
	clk.add(boundsCheckEvery)
	if changed, _ := m.bounds.maybeTrain(clk.now(), settledMembers(40, -150, 150)); !changed || m.bounds.Current().Epoch != 2 {
		t.Fatalf("not retrained after the swarm tripled its spread: epoch %d", m.bounds.Current().Epoch)
	}
	clk.add(boundsCheckEvery)
	if changed, _ := m.bounds.maybeTrain(clk.now(), settledMembers(40, -50, 50)); changed {
		t.Fatal("retrained twice within ten minutes")
	}

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m2 := newCoordManager(t, dir, clk)
	if b := m2.bounds.Current(); b.Epoch != 2 || !near(b.Bounds.Hi[0], 150-2*300.0/39) {
		t.Fatalf("restarted manager's bounds %+v, want epoch 2", b)
	}
	if a := m2.members.Answer(peer.ID("asker"), entry.Request{}); len(a.Bounds) == 0 {
		t.Fatal("restarted manager's entry answers carry no bounds")
	}
}

// TestBoundsKeepMinimumWidth: members all at one place do not stretch
// millisecond noise over the whole space.
func TestBoundsKeepMinimumWidth(t *testing.T) {
	b, ok := trainFrom(settledMembers(10, 5, 6), 3)
	if !ok {
		t.Fatal("not trained from 10 settled members")
	}
	for i := range b.Lo {
		if w := b.Hi[i] - b.Lo[i]; w < minBoundsWidth-1e-9 {
			t.Fatalf("dimension %d is %.2f ms wide, want at least %v", i, w, minBoundsWidth)
		}
	}
}

// TestLocatedHostsRemapped: a host's coordinate is stored in the channel
// database; while it is trusted (a day when settled members measured it
// with a good fit, five minutes otherwise) the host is not measured
// again, its point follows the bounds, and a host that cannot be
// measured again keeps its stored coordinate.
func TestLocatedHostsRemapped(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	m := newCoordManager(t, t.TempDir(), clk)
	bounds := coord.Bounds{Lo: []float64{-20, -20, -20}, Hi: []float64{20, 20, 20}}
	l := &memberLocator{members: m.members, db: m.db, bounds: func() coord.Bounds { return bounds }, now: clk.now}
	ctx := context.Background()
	if _, err := l.Locate(ctx, "a.example:443"); err == nil {
		t.Fatal("a host never measured located with no members to measure it")
	}
	sure := channels.Located{Coord: coord.Coord{Vec: []float64{10, 0, 0}}, Residual: 0.1, ProbeError: 0.2, At: clk.now()}
	if err := m.db.PutLocated("a.example:443", sure); err != nil {
		t.Fatal(err)
	}
	p, err := l.Locate(ctx, "a.example:443")
	if err != nil || !near(p[0], 0.75) {
		t.Fatalf("stored host located at %v, %v; want x 0.75", p, err)
	}
	bounds = coord.Bounds{Lo: []float64{0, -20, -20}, Hi: []float64{40, 20, 20}}
	if p, _ := l.Locate(ctx, "a.example:443"); !near(p[0], 0.25) {
		t.Fatalf("after new bounds the host is at %v, want x 0.25", p)
	}
	clk.add(2 * relocateAfter) // stale, and no members to measure it again
	if p, err := l.Locate(ctx, "a.example:443"); err != nil || !near(p[0], 0.25) {
		t.Fatalf("stale host that cannot be measured again: %v, %v; want its stored point", p, err)
	}
	unsure := sure
	unsure.ProbeError = 0.9
	if trustFor(sure) != relocateAfter || trustFor(unsure) != relocateUnsure {
		t.Fatalf("trusted for %v and %v", trustFor(sure), trustFor(unsure))
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
