package node

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// TestHeartbeatOncePerPair drives two neighbours' rounds by hand: one
// exchange carries both peers' news, so a peer whose coordinate is settled
// skips a neighbour whose own round just reached it, except to take a
// round-trip sample (the first time, and every sampleEvery intervals
// after) and in a round started by news, which goes to every neighbour.
func TestHeartbeatOncePerPair(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// An hour between rounds: only the calls below run them.
	c := newCluster(t, Config{Heartbeat: time.Hour})
	a := c.addAt(ctx, can.Point{0.25, 0.5, 0.5})
	b := c.addAt(ctx, can.Point{0.75, 0.5, 0.5})
	// B's join starts a round at once, which tells A of the split.
	c.waitTiled(10 * time.Second)
	a.stop()
	b.stop()
	started := func(m *member) int64 { return m.n.Stats().Heartbeats }
	round := func(m *member, all bool, want int64) {
		t.Helper()
		before := started(m)
		m.n.heartbeatRound(ctx, all)
		if got := started(m) - before; got != want {
			t.Fatalf("round (all %v) started %d exchanges, want %d", all, got, want)
		}
	}
	// Until a's coordinate rests on firstMoveSamples samples, every
	// exchange is one it needs.
	round(a, false, 1)
	round(b, false, 1)
	round(a, false, 1)
	for i := a.n.viv.Samples(); i < firstMoveSamples; i++ {
		a.n.observe(b.h.ID(), &wire.Coordinate{Vec: []float64{1, 2, 3}, Error: 0.2}, 20*time.Millisecond)
	}
	for i := b.n.viv.Samples(); i < firstMoveSamples; i++ {
		b.n.observe(a.h.ID(), &wire.Coordinate{Vec: []float64{4, 5, 6}, Error: 0.2}, 20*time.Millisecond)
	}
	for _, m := range []*member{a, b} { // as they were before their first exchange
		m.n.mu.Lock()
		for _, nb := range m.n.nbrs {
			nb.asked, nb.told = time.Time{}, time.Time{}
		}
		m.n.mu.Unlock()
	}
	round(a, false, 1) // nothing heard from b's own round yet
	round(b, false, 1) // a's round reached b, but b has no sample of its own
	round(a, false, 0) // b's round just reached a, and a has a sample
	round(b, false, 0)
	round(a, true, 1) // news goes to every neighbour

	// Once the skipped neighbour's sample is sampleEvery intervals old, the
	// peer exchanges with it again.
	a.n.mu.Lock()
	a.n.nbrs[b.h.ID()].told = time.Now().Add(-sampleEvery * time.Hour)
	a.n.mu.Unlock()
	round(a, false, 1)
	// And when the neighbour's own rounds stop reaching it (it died, or
	// is slow), the peer heartbeats it every round and so counts misses.
	a.n.mu.Lock()
	a.n.nbrs[b.h.ID()].asked = time.Now().Add(-2 * time.Hour)
	a.n.mu.Unlock()
	round(a, false, 1)
	round(a, false, 1) // replies are not b's own rounds
}
