package can

import (
	"fmt"
	"slices"
)

// PeerID names a peer in the overlay. It is opaque here; the networked layer
// uses the libp2p peer ID's string form, the simulator any unique string.
type PeerID string

// NeighbourInfo is what a peer knows of one neighbour, learned from its
// heartbeats: who it is, the zones it holds and its last announced load.
type NeighbourInfo struct {
	ID    PeerID
	Zones []Zone
	Load  Load
}

// NextHop is one greedy CAN routing step taken by a peer that holds self and
// knows the neighbours nbrs. When one of self contains target, local is true
// and the peer is the target's owner. Otherwise next is the neighbour whose
// zone is closest to target (Euclidean distance from the point to the box;
// ties go to the smaller PeerID), and ok is false when no neighbour is closer
// than the peer's own zones, which a consistent neighbour table never
// produces: the closest point of the peer's zone to target always lies on a
// face shared with a strictly closer neighbour.
func NextHop(self []Zone, nbrs []NeighbourInfo, target Point) (next PeerID, local, ok bool) {
	best := -1.0
	for _, z := range self {
		if z.Contains(target) {
			return "", true, true
		}
		if d := z.Dist2(target); best < 0 || d < best {
			best = d
		}
	}
	var (
		bestID   PeerID
		bestDist = best
		found    bool
	)
	for _, n := range nbrs {
		for _, z := range n.Zones {
			d := z.Dist2(target)
			if z.Contains(target) {
				d = -1 // the owner beats a neighbour that merely touches target
			}
			if d < bestDist || (found && d == bestDist && n.ID < bestID) || (best < 0 && !found) {
				bestID, bestDist, found = n.ID, d, true
			}
		}
	}
	return bestID, false, found
}

// Route forwards a message from peer from towards target (clamped into the
// box) with NextHop at every peer, as the networked overlay does, and
// returns the peers visited, from first to the owner last; hops are
// len(path)-1. Callers that need only the owner use Owner, a walk down the
// partition tree that is much cheaper.
func (m *Map) Route(from PeerID, target Point) ([]PeerID, error) {
	p, ok := m.holders[from]
	if !ok {
		return nil, fmt.Errorf("route from %s: %w", from, ErrUnknownPeer)
	}
	if len(target) != m.dim {
		return nil, fmt.Errorf("route to a %d-dimensional point: %w", len(target), ErrDimension)
	}
	target = Clamp(target)
	path := []PeerID{from}
	for range 4 * len(m.holders) {
		self := m.localView(p)
		next, local, ok := NextHop(self, m.buf, target)
		if local {
			return path, nil
		}
		if !ok {
			return path, fmt.Errorf("route from %s at %s: %w", from, p.id, ErrNoRoute)
		}
		p = m.holders[next]
		path = append(path, next)
	}
	return path, fmt.Errorf("route from %s: loop after %d hops: %w", from, len(path)-1, ErrNoRoute)
}

// localView fills m.buf with p's neighbour table, reusing its memory, and
// returns p's zones.
func (m *Map) localView(p *holder) []Zone {
	m.buf = m.buf[:0]
	for _, z := range p.leaves {
		for _, x := range z.nbrs {
			q := x.holder
			if q == p || slices.ContainsFunc(m.buf, func(n NeighbourInfo) bool { return n.ID == q.id }) {
				continue
			}
			m.buf = append(m.buf, NeighbourInfo{ID: q.id, Zones: q.zones()})
		}
	}
	return p.zones()
}
