package emulate

import (
	"fmt"
	"math/rand/v2"
)

// Place returns a layout on the named matrix (see Layout.Matrix) that puts
// each of ips on its own matrix node, drawn at random from r, so a demo or
// test swarm spreads over the measured network. There must be at least as
// many nodes as IPs.
func Place(matrix string, ips []string, r *rand.Rand) (*Layout, error) {
	l := &Layout{Matrix: matrix, Nodes: make(map[string]int, len(ips))}
	n := l.Len()
	if n == 0 {
		_, err := l.emulator()
		return nil, fmt.Errorf("place %d addresses: %w", len(ips), err)
	}
	if len(ips) > n {
		return nil, fmt.Errorf("place %d addresses on a matrix of %d nodes: too many", len(ips), n)
	}
	perm := r.Perm(n)
	for i, ip := range ips {
		if _, dup := l.Nodes[ip]; dup {
			return nil, fmt.Errorf("place addresses: %s listed twice", ip)
		}
		l.Nodes[ip] = perm[i]
	}
	if _, err := DecodeLayout(mustJSON(l)); err != nil {
		return nil, fmt.Errorf("place addresses: %w", err)
	}
	return l, nil
}
