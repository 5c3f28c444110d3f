package node

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/latency"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
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
	c.extraFor = func(self peer.ID) func(peer.ID) time.Duration {
		if err := e.AssignPeer(self, nodes[next]); err != nil {
			t.Fatal(err)
		}
		next++
		return e.For(self).Peer
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
