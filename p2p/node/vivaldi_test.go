package node

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/latency"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestHeartbeatsFeedVivaldi emulates PlanetLab latencies between six live
// peers: the coordinates their heartbeats produce must predict the
// emulated RTTs between neighbours to within 50 % (median relative error).
func TestHeartbeatsFeedVivaldi(t *testing.T) {
	if testing.Short() {
		t.Skip("libp2p swarm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e := emulate.New(latency.PlanetLab())
	nodes := []int{0, 40, 80, 120, 160, 200}
	c := newCluster(t, Config{Heartbeat: 100 * time.Millisecond})
	next := 0
	c.tweak = func(self peer.ID, cfg *Config) {
		if err := e.AssignPeer(self, nodes[next]); err != nil {
			t.Fatal(err)
		}
		next++
		cfg.PeerExtra = e.For(self).Peer
	}
	var members []*member
	for range nodes {
		members = append(members, c.add(ctx))
	}
	start := time.Now()
	c.waitStable(30 * time.Second)
	relErr := func() float64 {
		var errs []float64
		for _, a := range members {
			for _, id := range a.n.Neighbours() {
				var b *member
				for _, m := range members {
					if m.h.ID() == id {
						b = m
					}
				}
				want, _ := e.PeerRTT(a.h.ID(), id)
				got := a.n.Coordinate().DistanceTo(b.n.Coordinate())
				errs = append(errs, math.Abs(got-float64(want)/float64(time.Millisecond))/(float64(want)/float64(time.Millisecond)))
			}
		}
		slices.Sort(errs)
		return errs[len(errs)/2]
	}
	var got float64
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if got = relErr(); got < 0.5 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("median relative error of heartbeat-fed coordinates between neighbours: %.2f after %v", got, time.Since(start).Round(100*time.Millisecond))
	if got >= 0.5 {
		t.Fatalf("median relative error %.2f, want < 0.5", got)
	}
}

// TestDriftRejoins gives one peer bounds that map its coordinate onto the
// far corner of the space: it must leave its zone near the origin and rejoin
// at the corner, with the zones still tiling the space.
func TestDriftRejoins(t *testing.T) {
	if testing.Short() {
		t.Skip("libp2p swarm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: 200 * time.Millisecond})
	for range 3 {
		c.add(ctx)
	}
	c.waitStable(30 * time.Second)
	far := &coord.Bounds{Lo: []float64{-2000, -2000, -2000}, Hi: []float64{-1000, -1000, -1000}}
	c.tweak = func(_ peer.ID, cfg *Config) { cfg.Bounds = far }
	corner := can.Point{1, 1, 1}
	mover := c.addAt(ctx, can.Point{0.05, 0.05, 0.05})
	if z := mover.n.Zones(); len(z) == 0 || !z[0].Contains(can.Point{0.05, 0.05, 0.05}) {
		t.Fatalf("mover joined with zones %v", z)
	}
	// A task it holds (perhaps running) stays with it: a drift moves the
	// zone, not the work already accepted.
	if err := mover.q.Enqueue(ctx, &task.Task{ID: "kept"}, c.envelope("kept", can.Point{0.05, 0.05, 0.05}), nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if o := c.owner(corner); o == mover && c.tiling() == "" {
			if ids := mover.q.ids(); len(ids) != 1 || ids[0] != "kept" {
				t.Fatalf("mover's queue holds %v after the drift, want [kept]", ids)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("mover holds %v, tiling: %q; want it at the corner %v", mover.n.Zones(), c.tiling(), corner)
}
