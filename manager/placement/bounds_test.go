package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/test"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
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

// meta is a Meta in memory, as JSON like the channel database keeps it.
type meta map[string][]byte

func (m meta) GetMeta(name string, v any) (bool, error) {
	b, ok := m[name]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}

func (m meta) PutMeta(name string, v any) error {
	b, err := json.Marshal(v)
	m[name] = b
	return err
}

// located is a Located in memory.
type located map[string]channels.Located

func (l located) GetLocated(h string) (channels.Located, bool, error) {
	v, ok := l[h]
	return v, ok, nil
}
func (l located) PutLocated(h string, v channels.Located) error { l[h] = v; return nil }

// noMembers is an overlay with no member to measure from.
type noMembers struct{}

func (noMembers) MemberInfos() []members.Member { return nil }

// clock is a settable clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }

// trainer is a trainer over store whose published records land in
// published.
func trainer(t *testing.T, store meta, key crypto.PrivKey, published *[]byte) *Trainer {
	t.Helper()
	b, err := NewTrainer(store, key, func(signed []byte) { *published = signed }, DefaultBounds, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBoundsTrainedFromMembers: the trainer cuts the CAN space's bounds
// from the members' settled coordinates (5 % trimmed each side), not
// before enough have settled; it retrains only when the swarm has moved
// by a quarter of the box and ten minutes have passed; it publishes each
// record signed with the manager's key; and a trainer started again over
// the same store keeps its bounds and publishes them at once.
func TestBoundsTrainedFromMembers(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	key, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	store := meta{}
	var published []byte
	b := trainer(t, store, key, &published)

	young := settledMembers(40, -50, 50)
	for i := range 20 {
		young[i].Samples = 10 // half the swarm still settling
	}
	if changed, err := b.MaybeTrain(clk.now(), young); err != nil || changed {
		t.Fatalf("trained with half the members unsettled: %v, %v", changed, err)
	}
	if published != nil {
		t.Fatal("bounds published before any were trained")
	}

	clk.add(boundsCheckEvery)
	if changed, err := b.MaybeTrain(clk.now(), settledMembers(40, -50, 50)); err != nil || !changed {
		t.Fatalf("not trained from 40 settled members: %v, %v", changed, err)
	}
	cur := b.Current()
	// 40 values, 5 % cut each side: the 3rd lowest and highest remain.
	step := 100.0 / 39
	if cur.Epoch != 1 || !near(cur.Bounds.Lo[0], -50+2*step) || !near(cur.Bounds.Hi[0], 50-2*step) {
		t.Fatalf("trained bounds %+v, want epoch 1 and x in [%.2f, %.2f]", cur, -50+2*step, 50-2*step)
	}
	got, err := envelope.OpenBounds(published, key.GetPublic())
	if err != nil || got.Epoch != 1 {
		t.Fatalf("published bounds: %+v, %v", got, err)
	}

	// A swarm that moved a little, or a lot but too soon, keeps the box.
	clk.add(retrainEvery)
	if changed, _ := b.MaybeTrain(clk.now(), settledMembers(40, -55, 55)); changed {
		t.Fatal("retrained after a 5 % move")
	}
	clk.add(boundsCheckEvery)
	if changed, _ := b.MaybeTrain(clk.now(), settledMembers(40, -150, 150)); !changed || b.Current().Epoch != 2 {
		t.Fatalf("not retrained after the swarm tripled its spread: epoch %d", b.Current().Epoch)
	}
	clk.add(boundsCheckEvery)
	if changed, _ := b.MaybeTrain(clk.now(), settledMembers(40, -50, 50)); changed {
		t.Fatal("retrained twice within ten minutes")
	}

	var again []byte
	b2 := trainer(t, store, key, &again)
	if cur := b2.Current(); cur.Epoch != 2 || !near(cur.Bounds.Hi[0], 150-2*300.0/39) {
		t.Fatalf("restarted trainer's bounds %+v, want epoch 2", cur)
	}
	if got, err := envelope.OpenBounds(again, key.GetPublic()); err != nil || got.Epoch != 2 {
		t.Fatalf("restarted trainer published %+v, %v", got, err)
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
	db := located{}
	bounds := coord.Bounds{Lo: []float64{-20, -20, -20}, Hi: []float64{20, 20, 20}}
	l := NewLocator(noMembers{}, nil, db, func() envelope.Bounds { return envelope.Bounds{Epoch: 1, Bounds: bounds} }, nil, clk.now, nil)
	ctx := context.Background()
	if _, err := l.Locate(ctx, "a.example:443"); err == nil {
		t.Fatal("a host never measured located with no members to measure it")
	}
	sure := channels.Located{Coord: coord.Coord{Vec: []float64{10, 0, 0}}, Residual: 0.1, ProbeError: 0.2, At: clk.now()}
	if err := db.PutLocated("a.example:443", sure); err != nil {
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

// TestHostsAtNearestMember: a host is placed at the anchor of the member
// that measured it nearest, wherever its coordinate maps, trained bounds
// or not, trusted coordinate or not; a nearest member that holds no zone,
// or none recorded, has it measured again, and places it by its
// coordinate while it cannot be.
func TestHostsAtNearestMember(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	db := located{}
	nearest, elsewhere, gone := test.RandPeerIDFatal(t), test.RandPeerIDFatal(t), test.RandPeerIDFatal(t)
	anchors := map[peer.ID]can.Point{nearest: {0.1, 0.2, 0.3}, elsewhere: {0.9, 0.1, 0.1}}
	box := coord.Bounds{Lo: []float64{-20, -20, -20}, Hi: []float64{20, 20, 20}}
	bounds := envelope.Bounds{Bounds: box}
	ms := &countingMembers{}
	l := NewLocator(ms, nil, db, func() envelope.Bounds { return bounds }, func(id peer.ID) (can.Point, bool) { p, ok := anchors[id]; return p, ok }, clk.now, nil)
	ctx := context.Background()
	sure := channels.Located{Coord: coord.Coord{Vec: []float64{10, 0, 0}}, Residual: 0.1, ProbeError: 0.2, At: clk.now(), Nearest: nearest.String()}
	unsure := sure
	unsure.ProbeError = 0.9
	mapped := box.Map(sure.Coord)
	atNearest := anchors[nearest]
	for _, c := range []struct {
		name  string
		loc   channels.Located
		epoch uint64
		want  can.Point
	}{
		{"trusted, bounds untrained", sure, 0, atNearest},
		{"untrusted, bounds trained", unsure, 1, atNearest},
		{"trusted, bounds trained", sure, 1, atNearest},
		{"nearest holds no zone", func() channels.Located { l := unsure; l.Nearest = gone.String(); return l }(), 1, mapped},
		{"no nearest recorded", func() channels.Located { l := unsure; l.Nearest = ""; return l }(), 0, mapped},
	} {
		db["a.example:443"] = c.loc
		bounds.Epoch = c.epoch
		asked := ms.asked
		p, err := l.Locate(ctx, "a.example:443")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(p, c.want) {
			t.Errorf("%s: placed at %v, want %v", c.name, p, c.want)
		}
		// A fresh location whose nearest member holds no zone is measured
		// again (here nobody can measure it, so it is kept); one whose
		// nearest holds a zone is not.
		if again := ms.asked > asked; again != !slices.Equal(p, atNearest) {
			t.Errorf("%s: measured again %v", c.name, again)
		}
	}
}

// countingMembers is an overlay with no member to measure from that
// counts how often it was asked for its members.
type countingMembers struct{ asked int }

func (c *countingMembers) MemberInfos() []members.Member { c.asked++; return nil }
