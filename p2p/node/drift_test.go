package node

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	libp2ptest "github.com/libp2p/go-libp2p/core/test"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// confidentVivaldi returns a Vivaldi client whose error has dropped to
// coord.SettledError or below and that rests on firstMoveSamples samples, from
// steady measurements of one other peer.
func confidentVivaldi(t *testing.T) *coord.Client {
	t.Helper()
	viv, err := coord.NewClient(can.DefaultDim, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	other := coord.Coord{Vec: []float64{40, 0, 0}, Error: 0.1}
	for range firstMoveSamples {
		if _, err := viv.Observe("other", other, 40*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if e := viv.Coord().Error; e > coord.SettledError {
		t.Fatalf("Vivaldi error %v after 100 steady samples, want ≤ %v", e, coord.SettledError)
	}
	return viv
}

// TestDriftedFirstMove checks when a node moves to its mapped coordinate.
// The bounds lie far from any coordinate Vivaldi reaches here, so every
// coordinate maps to the clamped corner (1, 0, 0): outside the zone
// [0,½)³ but within its diagonal of its centre. A node that joined at a
// hashed point must move there; one already placed by its coordinate
// stays (the diagonal rule), and a point inside the zone never moves it.
func TestDriftedFirstMove(t *testing.T) {
	half := can.Zone{Lo: can.Point{0, 0, 0}, Hi: can.Point{0.5, 0.5, 0.5}}
	corner := &coord.Bounds{Lo: []float64{-2000, 1000, 1000}, Hi: []float64{-1000, 2000, 2000}}
	inside := &coord.Bounds{Lo: []float64{1000, 1000, 1000}, Hi: []float64{2000, 2000, 2000}}
	viv := confidentVivaldi(t)
	for _, tc := range []struct {
		name   string
		bounds *coord.Bounds
		placed bool
		want   bool
	}{
		{"hash-joined, point outside the zone", corner, false, true},
		{"placed, point within the diagonal", corner, true, false},
		{"hash-joined, point inside the zone", inside, false, false},
		{"no bounds", nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &Node{cfg: Config{Bounds: tc.bounds, Heartbeat: time.Second, Point: can.Point{0.3, 0.1, 0.1}},
				bounds: tc.bounds, viv: viv, zones: []can.Zone{half}, placed: tc.placed, member: true}
			if got, p := n.Drifted(); got != tc.want {
				t.Fatalf("Drifted() = %v at %v, want %v", got, p, tc.want)
			}
		})
	}
}

// TestFirstMoveAwaitsTrainedBounds: with AwaitBounds a node does not make
// its first move by the operator's box until the manager's trained bounds
// arrive (or its coordinate has rested on awaitSamples samples); once they
// do, it moves to the point they map it to, and older or malformed bounds
// are ignored.
func TestFirstMoveAwaitsTrainedBounds(t *testing.T) {
	half := can.Zone{Lo: can.Point{0, 0, 0}, Hi: can.Point{0.5, 0.5, 0.5}}
	operator := &coord.Bounds{Lo: []float64{-2000, 1000, 1000}, Hi: []float64{-1000, 2000, 2000}} // maps to (1, 0, 0)
	trained := coord.Bounds{Lo: []float64{1000, -2000, 1000}, Hi: []float64{2000, -1000, 2000}}   // maps to (0, 1, 0)
	n := &Node{cfg: Config{Dim: 3, Bounds: operator, AwaitBounds: true, Heartbeat: time.Second, Point: can.Point{0.3, 0.1, 0.1}},
		bounds: operator, viv: confidentVivaldi(t), zones: []can.Zone{half}, member: true,
		log: slog.New(slog.DiscardHandler)}
	if got, _ := n.Drifted(); got {
		t.Fatal("moved by the operator's bounds while awaiting trained ones")
	}
	if n.SetBounds(0, trained) {
		t.Fatal("bounds of epoch 0 adopted")
	}
	if n.SetBounds(1, coord.Bounds{Lo: []float64{0}, Hi: []float64{1}}) {
		t.Fatal("one-dimensional bounds adopted in a three-dimensional space")
	}
	if !n.SetBounds(2, trained) {
		t.Fatal("trained bounds of epoch 2 not adopted")
	}
	if n.SetBounds(1, *operator) {
		t.Fatal("older bounds (epoch 1) replaced newer ones (epoch 2)")
	}
	got, p := n.Drifted()
	if !got || p[1] != 1 || p[0] != 0 {
		t.Fatalf("with trained bounds: Drifted() = %v, %v; want a move to (0, 1, 0)", got, p)
	}
}

// TestDriftsCounted: a peer's first move to its mapped point counts as a
// move, and a later one, when its coordinate maps beyond its zone's
// diagonal, as a drift rejoin too. Eight peers, so that the zone the
// first move lands in is small enough for the far corner to lie beyond
// its diagonal.
func TestDriftsCounted(t *testing.T) {
	// Heartbeats keep the others' tables fresh, so that each move's join
	// routes (a join that meets a stale table waits an interval).
	c, m, ctx := octants(t, Config{Heartbeat: 100 * time.Millisecond})
	toZero := &coord.Bounds{Lo: []float64{1000, 1000, 1000}, Hi: []float64{2000, 2000, 2000}} // maps to (0, 0, 0)
	for i, tc := range []struct {
		bounds        *coord.Bounds
		moves, drifts int64
	}{{toCorner, 1, 0}, {toZero, 2, 1}} {
		c.waitTiled(30 * time.Second)
		// A move rejoins through neighbours heard from first-hand; a
		// stopped peer hears of them by their heartbeats alone.
		c.waitUntil(30*time.Second, "no neighbour to rejoin through", func() string {
			m.n.mu.Lock()
			defer m.n.mu.Unlock()
			for _, nb := range m.n.nbrs {
				if nb.direct && nb.misses == 0 {
					return ""
				}
			}
			return "none heard from first-hand"
		})
		m.n.mu.Lock()
		m.n.bounds = tc.bounds
		m.n.mu.Unlock()
		moveUntil(ctx, t, m.n, tc.moves)
		if st := m.n.Stats(); st.Moves != tc.moves || st.Drifts() != tc.drifts {
			t.Fatalf("after move %d: %d moves, %d drift rejoins; want %d, %d", i+1, st.Moves, st.Drifts(), tc.moves, tc.drifts)
		}
	}
}

// moveUntil runs node n's drift check until it has made moves moves, as
// its turns would: a move waits for a later turn when the lookup finds no
// owner for the point (each peer asked gets two heartbeat intervals, which
// a fresh connection on a loaded machine can take).
func moveUntil(ctx context.Context, t *testing.T, n *Node, moves int64) {
	t.Helper()
	for try := 0; n.Stats().Moves < moves; try++ {
		if try == 20 {
			t.Fatalf("%d moves after %d drift checks, want %d", n.Stats().Moves, try, moves)
		}
		if err := driftCheck(ctx, n); err != nil {
			t.Fatalf("move %d: %v", moves, err)
		}
	}
}

// driftCheck runs node n's drift check as its manage loop would.
func driftCheck(ctx context.Context, n *Node) error { return n.checkDrift(ctx) }

// toCorner maps every coordinate Vivaldi reaches in these tests to the
// far corner (1, 1, 1) of the CAN space.
var toCorner = &coord.Bounds{Lo: []float64{-2000, -2000, -2000}, Hi: []float64{-1000, -1000, -1000}}

// octants starts a cluster of eight peers with cfg at the centres of the
// space's octants and returns it with the owner of the corner (0.1, 0.1,
// 0.1), its rounds stopped so that its moves are the test's alone: its
// coordinate is confident and its bounds map it to the far corner
// (toCorner). It skips a short
// test run; the context ends with the test or after a minute.
func octants(t *testing.T, cfg Config) (*cluster, *member, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("libp2p swarm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c := newCluster(t, cfg)
	for _, x := range []float64{0.25, 0.75} {
		for _, y := range []float64{0.25, 0.75} {
			for _, z := range []float64{0.25, 0.75} {
				c.addAt(ctx, can.Point{x, y, z})
			}
		}
	}
	m := c.owner(can.Point{0.1, 0.1, 0.1})
	if m == nil {
		t.Fatalf("nobody holds (0.1, 0.1, 0.1): %s", c.zoneMap())
	}
	m.stop()
	m.n.mu.Lock()
	m.n.viv, m.n.bounds = confidentVivaldi(t), toCorner
	m.n.mu.Unlock()
	return c, m, ctx
}

// TestTooDeepJoinsElsewhere: where the manager refuses a peer's point as
// too deep to split (a corner that as many members as a map keeps exact
// already crowd), the peer joins at another point and becomes a member,
// rather than asking for the same point every round.
func TestTooDeepJoinsElsewhere(t *testing.T) {
	c := newCluster(t, Config{Heartbeat: 100 * time.Millisecond})
	corner := can.Point{1, 1, 1}
	for i := range can.DepthLimit(can.DefaultDim) + 1 {
		if _, err := c.auth.Answer(libp2ptest.RandPeerIDFatal(t), zonecert.Request{Op: zonecert.OpJoin, Point: corner}, time.Now()); err != nil {
			t.Fatalf("crowd member %d: %v", i, err)
		}
	}
	ctx := context.Background()
	n, q := c.newNode(ctx, corner)
	m := &member{h: n.h, n: n, q: q}
	m.alive.Store(true)
	c.mu.Lock()
	c.members = append(c.members, m)
	c.mu.Unlock()
	if err := n.Join(ctx); !errors.Is(err, zonecert.ErrTooDeep) {
		t.Fatalf("join at the crowded corner: %v, want ErrTooDeep", err)
	}
	m.run()
	t.Cleanup(m.stop)
	deadline := time.Now().Add(20 * time.Second)
	for len(n.Zones()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no zone 20 s after the refusal: the peer kept asking for its point")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if z := n.Zones()[0]; z.Contains(corner) {
		t.Errorf("granted %v, which holds the corner that was too deep", z)
	}
	if err := c.auth.Check(); err != nil {
		t.Fatal(err)
	}
}
