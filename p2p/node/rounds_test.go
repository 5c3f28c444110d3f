package node

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestOverlayChurnRounds repeats rounds of churn on real libp2p hosts with
// short heartbeats: in each round peers crash (neighbours among them, so an
// heir may die with the peer it should replace), one leaves gracefully and
// new peers join through random live peers while the overlay is still
// settling. After every round the overlay must settle: zones tile the unit
// space, every pair of abutting peers lists each other, no peer lists a
// departed one, every live peer holds a zone, and inserts reach the live
// owner of their point. The CI variant is small; HIVECRAWL_LONG=1 runs 16
// peers for 12 rounds.
func TestOverlayChurnRounds(t *testing.T) {
	tests := []struct {
		name          string
		peers, rounds int
		heartbeat     time.Duration
		long          bool
	}{
		{"10 peers 3 rounds", 10, 3, 300 * time.Millisecond, false},
		{"16 peers 12 rounds", 16, 12, 250 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && os.Getenv("HIVECRAWL_LONG") == "" {
				t.Skip("set HIVECRAWL_LONG=1 for the long churn rounds")
			}
			if testing.Short() {
				t.Skip("libp2p swarm")
			}
			runRounds(t, tt.peers, tt.rounds, tt.heartbeat)
		})
	}
}

func runRounds(t *testing.T, peers, rounds int, hb time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: hb})
	for range peers {
		c.add(ctx)
	}
	c.waitStable(60 * time.Second)
	var worst, total time.Duration
	for r := range rounds {
		live := c.live()
		c.rng.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
		crash, leave := live[:2], live[2]
		start := time.Now()
		if err := leave.n.Leave(ctx); err != nil {
			t.Fatalf("round %d: leave: %v", r, err)
		}
		for _, m := range append(crash, leave) {
			m.alive.Store(false)
			m.stop()
			m.h.Close()
		}
		for range 3 {
			c.add(ctx)
		}
		c.waitStable(60 * time.Second)
		took := time.Since(start)
		total += took
		worst = max(worst, took)
		c.insertAll(ctx, fmt.Sprintf("r%d", r), 10)
	}
	t.Logf("%d peers, %d rounds of 2 crashes, 1 leave and 3 joins (heartbeat %v): settled %v on average after the churn began, at worst %v",
		peers, rounds, hb, (total / time.Duration(rounds)).Round(100*time.Millisecond), worst.Round(100*time.Millisecond))
}
