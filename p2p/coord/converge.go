package coord

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// RTTs is a latency matrix in milliseconds as Converge reads it;
// internal/latency.Matrix satisfies it.
type RTTs interface {
	Len() int
	RTT(i, j int) (ms float64, ok bool)
}

// Converge runs Vivaldi offline over the nodes of m listed in nodes, as the
// simulator and tests need: in each of rounds rounds every node measures the
// RTT to one other listed node drawn at random from r (retrying a few times
// when the matrix does not know that pair) and updates its coordinate. It
// returns the clients, in the order of nodes, for further observation; their
// step never calms (CalmAfter).
// About 100–300 rounds converge on the bundled matrices.
func Converge(m RTTs, nodes []int, dim, rounds int, r *rand.Rand) ([]*Client, error) {
	if len(nodes) < 2 {
		return nil, fmt.Errorf("converge vivaldi: %d nodes, need at least 2", len(nodes))
	}
	clients := make([]*Client, len(nodes))
	for i := range clients {
		c, err := NewClient(dim, r)
		if err != nil {
			return nil, fmt.Errorf("converge vivaldi: %w", err)
		}
		// A one-off convergence keeps the full step: calming is for
		// coordinates that go on being used while they run (CalmAfter).
		c.calmAfter = 0
		clients[i] = c
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = strconv.Itoa(n)
	}
	coords := make([]Coord, len(nodes))
	for range rounds {
		// Every node sees the others' coordinates as of the round's start,
		// as heartbeats would deliver them.
		for i, c := range clients {
			coords[i] = c.Coord()
		}
		for i, c := range clients {
			for range 4 {
				j := r.IntN(len(nodes) - 1)
				if j >= i {
					j++
				}
				rtt, ok := m.RTT(nodes[i], nodes[j])
				if !ok || !(rtt > 0) {
					continue
				}
				d := time.Duration(rtt * float64(time.Millisecond))
				if _, err := c.Observe(names[j], coords[j], d); err != nil {
					return nil, fmt.Errorf("converge vivaldi: node %d observes %d: %w", nodes[i], nodes[j], err)
				}
				break
			}
		}
	}
	return clients, nil
}
