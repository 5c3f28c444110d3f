package node

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// confidentVivaldi returns a Vivaldi client whose error has dropped to
// driftMaxError or below and that rests on firstMoveSamples samples, from
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
	if e := viv.Coord().Error; e > driftMaxError {
		t.Fatalf("Vivaldi error %v after 100 steady samples, want ≤ %v", e, driftMaxError)
	}
	return viv
}

// TestDriftedFirstMove checks when a node moves to its mapped coordinate.
// The bounds lie far from any coordinate Vivaldi reaches here, so every
// coordinate maps to the clamped corner (1, 0, 0): outside the zone
// [0,½)³ but within its diagonal of its centre. A node that joined at a
// hashed point must move there; one already placed by its coordinate
// stays (the diagonal rule), and a point inside the zone never moves it.
// A move happens only in the node's turn.
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
				bounds: tc.bounds, first: can.Point{0.3, 0.1, 0.1}, viv: viv, zones: []can.Zone{half}, placed: tc.placed}
			// The point's first component sets the node's turn; its slot
			// is the intervals 2·turn (mod 2·moveTurns), the next is not.
			turn := time.Unix(int64(2*(3*moveTurns/10)), 0) // turn ⌊0.3·moveTurns⌋
			got, p := n.driftedAt(turn)
			if got != tc.want {
				t.Fatalf("Drifted() in its turn = %v at %v, want %v", got, p, tc.want)
			}
			if got, _ := n.driftedAt(turn.Add(time.Second)); got {
				t.Fatalf("Drifted() outside its turn = true, want false")
			}
		})
	}
}

// TestNoMoveWhileAnHeir: a node waiting to take over part of a dead
// neighbour's zones that no one it knows claims does not move; once a
// live neighbour holds that part, it does.
func TestNoMoveWhileAnHeir(t *testing.T) {
	half := can.Zone{Lo: can.Point{0, 0, 0}, Hi: can.Point{0.5, 0.5, 0.5}}
	deadZone := can.Zone{Lo: can.Point{0.5, 0, 0}, Hi: can.Point{1, 0.5, 0.5}}
	corner := &coord.Bounds{Lo: []float64{-2000, 1000, 1000}, Hi: []float64{-1000, 2000, 2000}}
	n := &Node{cfg: Config{Bounds: corner, Heartbeat: time.Second, Point: can.Point{0.3, 0.1, 0.1}},
		bounds: corner, first: can.Point{0.3, 0.1, 0.1}, viv: confidentVivaldi(t), zones: []can.Zone{half},
		dead: map[peer.ID]*deadPeer{"dead": {zones: []can.Zone{deadZone}, since: time.Now()}},
		nbrs: map[peer.ID]*neighbour{}}
	turn := time.Unix(int64(2*(3*moveTurns/10)), 0) // turn ⌊0.3·moveTurns⌋
	if got, _ := n.driftedAt(turn); got {
		t.Fatal("moved while part of a dead neighbour's zones awaits this node")
	}
	n.nbrs["heir"] = &neighbour{id: "heir", zones: []can.Zone{deadZone}, direct: true}
	if got, _ := n.driftedAt(turn); !got {
		t.Fatal("did not move once a live neighbour held the dead one's zones")
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
		bounds: operator, first: can.Point{0.3, 0.1, 0.1}, viv: confidentVivaldi(t), zones: []can.Zone{half},
		log: slog.New(slog.DiscardHandler)}
	turn := time.Unix(int64(2*(3*moveTurns/10)), 0) // turn ⌊0.3·moveTurns⌋
	if got, _ := n.driftedAt(turn); got {
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
	got, p := n.driftedAt(turn)
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

// TestNoMoveIntoUnheldArea: a peer whose mapped point lies in the zone of
// a peer that just died, before an heir has taken it, keeps its zones and
// moves at a later turn, once the area has an owner again. Leaving first
// would hand its zones away and leave it holding nothing while its joins
// found no route.
func TestNoMoveIntoUnheldArea(t *testing.T) {
	// Dead after 30 missed intervals (3 s): the dead peer's zone stays
	// unheld for as long.
	c, m, ctx := octants(t, Config{Heartbeat: 100 * time.Millisecond, DeadAfter: 30})
	c.waitTiled(30 * time.Second)
	victim := c.owner(can.Point{0.9, 0.9, 0.9})
	if victim == nil || m == victim {
		t.Fatalf("owners of the corners: %s", c.zoneMap())
	}
	victim.alive = false
	victim.stop()
	victim.h.Close()

	if err := driftCheck(ctx, m.n); err != nil {
		t.Fatalf("move while the point is unheld: %v", err)
	}
	if st, zones := m.n.Stats(), m.n.Zones(); st.Moves != 0 || len(zones) == 0 {
		t.Fatalf("moved towards an area nobody holds: %d moves, zones %v", st.Moves, zones)
	}
	c.waitTiled(30 * time.Second) // an heir took the dead peer's zone
	moveUntil(ctx, t, m.n, 1)
	if st, zones := m.n.Stats(), m.n.Zones(); st.Moves != 1 || !holds(zones, can.Clamp(can.Point{1, 1, 1})) {
		t.Fatalf("after the heir took the area: %d moves, zones %v; want 1 move, holding (1, 1, 1)", st.Moves, zones)
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

// driftCheck runs node n's drift check as two of Serve's rounds would:
// the first starts the lookup for its mapped point, the next moves on the
// answer.
func driftCheck(ctx context.Context, n *Node) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	if err := n.checkDrift(ctx, &wg); err != nil {
		return err
	}
	wg.Wait()
	return n.checkDrift(ctx, &wg)
}

// toCorner maps every coordinate Vivaldi reaches in these tests to the
// far corner (1, 1, 1) of the CAN space.
var toCorner = &coord.Bounds{Lo: []float64{-2000, -2000, -2000}, Hi: []float64{-1000, -1000, -1000}}

// octants starts a cluster of eight peers with cfg at the centres of the
// space's octants and returns it with the owner of the corner (0.1, 0.1,
// 0.1), its rounds stopped so that its moves are the test's alone: its
// coordinate is confident, its bounds map it to the far corner (toCorner)
// and, with no first point, every moment is its turn. It skips a short
// test run; the context ends with the test or after a minute.
func octants(t *testing.T, cfg Config) (*cluster, *member, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("libp2p swarm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	// The octants heartbeat every 100 ms so that moves go fast, but a
	// busy machine stalls a process for longer than three missed rounds:
	// live peers were taken for dead, their zones taken over, and the
	// zones overlapped where the test waited for them to tile
	// (TestDriftsCounted, TestMoveLookupOffTheLoop beside a CPU hog).
	// Unless a test sets it, a peer here is dead after 3 s of silence.
	if cfg.DeadAfter == 0 {
		cfg.DeadAfter = int(3 * time.Second / cfg.Heartbeat)
	}
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
	m.n.viv, m.n.bounds, m.n.first = confidentVivaldi(t), toCorner, nil
	m.n.mu.Unlock()
	return c, m, ctx
}

// TestMoveLookupOffTheLoop: the lookup for a move's point runs beside the
// node's rounds, so peers that keep it waiting (it asks them one after
// another, two heartbeat intervals each) do not stop the node's
// heartbeats; the move comes once they answer again.
func TestMoveLookupOffTheLoop(t *testing.T) {
	c, m, _ := octants(t, Config{Heartbeat: 100 * time.Millisecond})
	c.waitTiled(30 * time.Second)
	var (
		mu     sync.Mutex
		events []peer.ID // who was asked for the point, in order; m's own ID for a heartbeat from m
	)
	logEvent := func(id peer.ID) {
		mu.Lock()
		events = append(events, id)
		mu.Unlock()
	}
	release := make(chan struct{})
	answer := sync.OnceFunc(func() { close(release) })
	t.Cleanup(answer)
	for _, o := range c.members {
		if o == m {
			continue
		}
		// The others' rounds stop, so every heartbeat between them and m
		// is m's. Their answers carry no coordinate: loopback round trips
		// would make m's coordinate unsure, and a node with an unsure
		// coordinate does not move.
		o.stop()
		o.h.SetStreamHandler(wire.HeartbeatProtocol, func(s network.Stream) {
			var hb wire.Heartbeat
			o.n.serve(s, "Heartbeat", &hb, wire.MaxHeartbeatSize, wire.MaxHeartbeatSize, func(_ context.Context, from peer.ID) wire.Message {
				if from == m.h.ID() {
					logEvent(from)
				}
				o.n.onHeartbeat(&hb, from)
				o.n.mu.Lock()
				defer o.n.mu.Unlock()
				resp := o.n.heartbeatLocked()
				self := resp.Self
				resp.Self = &wire.Peer{Id: self.Id, Addrs: self.Addrs, Zones: self.Zones, Load: self.Load}
				return resp
			})
		})
		o.h.SetStreamHandler(wire.LookupProtocol, func(s network.Stream) {
			logEvent(o.h.ID())
			<-release // answer nothing
			s.Reset()
		})
	}
	m.run()
	// The first lookup asks each peer once, the next the first again.
	// Count m's heartbeats between the first lookup's first ask and its
	// last.
	var beats, asked int
	c.waitUntil(30*time.Second, "the lookup for the move's point did not end", func() string {
		mu.Lock()
		defer mu.Unlock()
		seen := map[peer.ID]bool{}
		beats, asked = 0, 0
		pending := 0 // heartbeats since the latest ask
		for _, id := range events {
			switch {
			case id == m.h.ID():
				if asked > 0 {
					pending++
				}
			case seen[id]:
				return ""
			default:
				seen[id] = true
				asked++
				beats += pending
				pending = 0
			}
		}
		if asked > 0 && !m.n.seeking.Load() {
			return ""
		}
		drifted, p := m.n.Drifted()
		return fmt.Sprintf("%d peers asked; drifted %v to %v, coordinate %+v", asked, drifted, p, m.n.Coordinate())
	})
	answer()
	if asked < 3 || beats < 3 {
		t.Fatalf("%d heartbeats from the node while its lookup asked %d peers in turn; want at least 3 while at least 3 are asked", beats, asked)
	}
	for _, o := range c.members {
		if o != m {
			o.h.SetStreamHandler(wire.LookupProtocol, o.n.handleLookup)
			o.run()
		}
	}
	c.waitUntil(30*time.Second, "no move once lookups are answered", func() string {
		if st, zones := m.n.Stats(), m.n.Zones(); st.Moves == 0 || !holds(zones, can.Clamp(can.Point{1, 1, 1})) {
			return fmt.Sprintf("%d moves, zones %v, want (1, 1, 1) held; coordinate %+v", st.Moves, zones, m.n.Coordinate())
		}
		return ""
	})
	t.Logf("%d heartbeats while %d peers were asked in turn", beats, asked)
}
