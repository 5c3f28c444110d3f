package node

import (
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// View is a snapshot of what the node knows, for status pages.
type View struct {
	Zones      []can.Zone
	Load       can.Load
	Coordinate coord.Coord
	// Samples are the round trips the coordinate rests on.
	Samples int
	// Mapped is the coordinate's point in the CAN space under the node's
	// bounds (nil without), BoundsEpoch their training (0: untrained).
	Mapped      can.Point
	BoundsEpoch uint64
	Neighbours  []NeighbourView
	Stats       Stats
}

// NeighbourView is one neighbour as the node last heard of it.
type NeighbourView struct {
	ID    peer.ID
	Zones []can.Zone
	Load  can.Load
	// Direct says the neighbour was heard from itself, not only through
	// another peer's list.
	Direct bool
}

// View returns a snapshot of the node's zones, load, coordinate,
// neighbours and counters.
func (n *Node) View() View {
	c, samples := n.viv.Coord(), n.viv.Samples()
	n.mu.Lock()
	defer n.mu.Unlock()
	v := View{
		Zones:       append([]can.Zone(nil), n.zones...),
		Load:        n.load(),
		Coordinate:  c,
		Samples:     int(samples),
		BoundsEpoch: n.boundsEpoch,
		Stats:       n.statsLocked(),
	}
	if n.bounds != nil {
		v.Mapped = n.bounds.Map(c)
	}
	for _, nb := range n.nbrs {
		v.Neighbours = append(v.Neighbours, NeighbourView{
			ID: nb.id, Zones: append([]can.Zone(nil), nb.zones...), Load: nb.load, Direct: nb.direct,
		})
	}
	return v
}
