package node

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// boundsMapping returns bounds that map coordinate c to point p, so wide
// that the coordinate's wander under live heartbeats moves the point by
// nothing that matters.
func boundsMapping(c coord.Coord, p can.Point) *coord.Bounds {
	const w = 1e7
	b := &coord.Bounds{Lo: make([]float64, len(p)), Hi: make([]float64, len(p))}
	for i := range p {
		b.Lo[i] = c.Vec[i] - p[i]*w
		b.Hi[i] = b.Lo[i] + w
	}
	return b
}

// TestConcurrentMovesKeepSpaceCovered moves several peers of a 12-peer
// overlay at once, round after round (heartbeat 200 ms): after each round
// the zones must tile the space, every pair of abutting peers know each
// other, nothing change hands for two intervals, and 50 inserts from
// random peers reach the owners of their points. Moves are spread over
// turns in the live overlay (moveTurns), so moving several at once is
// beyond what it asks of itself. 3 movers a round and 12 rounds by
// default; 6 and 25 with HIVECRAWL_LONG=1 (docs/developer/overlay-journal.md
// has the pass counts of both).
func TestConcurrentMovesKeepSpaceCovered(t *testing.T) {
	if testing.Short() {
		t.Skip("libp2p swarm")
	}
	moving, rounds := 3, 12
	if os.Getenv("HIVECRAWL_LONG") != "" {
		moving, rounds = 6, 25
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: 200 * time.Millisecond})
	for range 12 {
		c.add(ctx)
	}
	c.waitStable(30 * time.Second)
	for burst := range rounds {
		live := c.live()
		movers := map[int]bool{}
		for len(movers) < moving {
			movers[c.rng.IntN(len(live))] = true
		}
		type move struct {
			to    can.Point
			moves int64
		}
		want := map[*member]move{}
		for i := range movers {
			m := live[i]
			p := c.randomPoint()
			for c.owner(p) == m {
				p = c.randomPoint()
			}
			// Serve's rounds read the coordinate client unlocked: swap
			// it while they are stopped.
			viv := confidentVivaldi(t)
			m.stop()
			m.n.mu.Lock()
			m.n.viv = viv
			m.n.bounds = boundsMapping(m.n.viv.Coord(), p)
			m.n.placed = false
			want[m] = move{p, m.n.stats.Moves + 1}
			m.n.mu.Unlock()
			m.run()
		}
		c.waitUntil(30*time.Second, fmt.Sprintf("burst %d: movers not moved", burst), func() string {
			for m, w := range want {
				// A takeover may have brought the point to it.
				if got := m.n.Stats().Moves; got < w.moves && c.owner(w.to) != m {
					return fmt.Sprintf("%s has moved %d times, want %d", m.h.ID().ShortString(), got, w.moves)
				}
			}
			return ""
		})
		// Placed now: a mover stays unless its point leaves its zone's
		// diagonal, which the fixed bounds keep it from.
		c.waitStable(30 * time.Second)
		c.insertAll(ctx, fmt.Sprintf("b%d", burst), 50)
		t.Logf("burst %d: %d movers, space tiled and routable", burst, len(want))
	}
}
