package node

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// TestMutualTakeoverSettles makes two peers holding sibling zones take each
// other for dead, as two slow peers on a loaded machine do: each takes the
// other's zone over, both now hold the parent zone, and neither heartbeats
// the other. Equal zones do not abut, so hearsay alone never makes them
// neighbours again; only a probe prompted by their common neighbours' lists
// brings the overlap to light. The smaller peer ID must keep the area, and
// the other, left without a zone, must rejoin at its point.
func TestMutualTakeoverSettles(t *testing.T) {
	if testing.Short() {
		t.Skip("libp2p swarm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: 200 * time.Millisecond})
	points := []can.Point{{0.2, 0.2, 0.2}, {0.8, 0.2, 0.2}, {0.2, 0.8, 0.2}, {0.8, 0.8, 0.2}, {0.5, 0.5, 0.8}}
	for _, p := range points {
		c.addAt(ctx, p)
	}
	c.waitStable(30 * time.Second)
	var a, b *member
	for i, x := range c.members {
		for _, y := range c.members[i+1:] {
			if a == nil && siblings(x.n.Zones(), y.n.Zones()) && commonNeighbour(c, x, y) {
				a, b = x, y
			}
		}
	}
	if a == nil {
		t.Fatal("no pair holding sibling zones with a common neighbour")
	}
	// Stopped, neither has a heartbeat in flight to the other that could
	// make them neighbours again.
	a.stop()
	b.stop()
	a.n.mu.Lock()
	b.n.mu.Lock()
	union := merge(append(append([]can.Zone(nil), a.n.zones...), b.n.zones...))
	for _, p := range []struct{ self, other *member }{{a, b}, {b, a}} {
		p.self.n.zones = append([]can.Zone(nil), union...)
		p.self.n.removeLocked(p.other.h.ID())
		p.self.n.gone[p.other.h.ID()] = time.Now()
	}
	b.n.mu.Unlock()
	a.n.mu.Unlock()
	a.run()
	b.run()

	winner, loser := a, b
	if b.h.ID() < a.h.ID() {
		winner, loser = b, a
	}
	took := c.waitStable(30 * time.Second)
	t.Logf("overlap settled and the loser rejoined %v after the mutual takeover", took.Round(100*time.Millisecond))
	for _, z := range union {
		if o := c.owner(z.Centre()); o != winner && o != loser {
			t.Errorf("centre of %v owned by a third peer", z)
		}
	}
	if o := c.owner(loser.n.cfg.Point); o != loser {
		t.Errorf("the loser does not hold its own point %v after rejoining", loser.n.cfg.Point)
	}
}

func commonNeighbour(c *cluster, x, y *member) bool {
	for _, z := range c.members {
		if z != x && z != y && abutsAny(z.n.Zones(), x.n.Zones()) && abutsAny(z.n.Zones(), y.n.Zones()) {
			return true
		}
	}
	return false
}

func siblings(a, b []can.Zone) bool {
	if len(a) != 1 || len(b) != 1 {
		return false
	}
	s, ok := a[0].Sibling()
	return ok && s.Equal(b[0])
}
