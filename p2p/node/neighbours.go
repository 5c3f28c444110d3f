package node

import (
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/peer"
)

// neighbour is what the node knows of one neighbour: a peer whose
// certified zones abut ours.
type neighbour struct {
	id    peer.ID
	zones []can.Zone // by its certificates
	load  can.Load
	nbrs  []*wire.Peer // its last announced neighbour list (share.go, wide samples)
	// rtt is the shortest heartbeat round trip measured to it, 0 before
	// the first (share.go): our own measurement, which it can lengthen
	// but not shorten.
	rtt time.Duration
	// idle is the crawl threads it last announced idle, less the tasks
	// shared with it since (share.go).
	idle   int
	misses int
	direct bool   // heard from itself
	seq    uint64 // the newest heartbeat's sequence number applied
	// asked is when the neighbour last sent us a heartbeat of its own
	// round, told when we last exchanged one of ours with it (see
	// heartbeatRound).
	asked, told time.Time
}

// Neighbours returns the IDs of the current neighbours.
func (n *Node) Neighbours() []peer.ID {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]peer.ID, 0, len(n.nbrs))
	for id := range n.nbrs {
		out = append(out, id)
	}
	return out
}

func (n *Node) removeLocked(id peer.ID) {
	if _, ok := n.nbrs[id]; ok {
		delete(n.nbrs, id)
		n.h.UnprotectNeighbour(id)
	}
}

// infosLocked returns the neighbour table in can's form.
func (n *Node) infosLocked() []can.NeighbourInfo {
	out := make([]can.NeighbourInfo, 0, len(n.nbrs))
	for _, nb := range n.nbrs {
		out = append(out, can.NeighbourInfo{ID: can.PeerID(nb.id), Zones: nb.zones, Load: nb.load})
	}
	return out
}
