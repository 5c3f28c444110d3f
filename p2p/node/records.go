package node

import (
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/share"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// self returns this peer's wire record; n.mu must be held.
func (n *Node) selfLocked() *wire.Peer {
	return &wire.Peer{
		Id:    []byte(n.h.ID()),
		Addrs: wire.AddrBytes(n.h.Addrs()),
		Load:  n.loadWire(),
		Coord: wire.CoordinateOf(n.viv.Coord()),
	}
}

func (n *Node) load() can.Load {
	if n.queue == nil {
		return can.Load{}
	}
	pieces, pages := n.queue.Load()
	return can.NewLoad(pieces, pages, n.cfg.Capacity)
}

// loadWire is the node's load as its heartbeats announce it; n.mu must be
// held.
func (n *Node) loadWire() *wire.Load {
	l := n.load()
	w := &wire.Load{Rtl: l.RTL, Rpl: l.RPL}
	if sh, ok := n.queue.(share.Queue); ok {
		waiting, idle := sh.Spare()
		w.Waiting, w.Idle = slots(waiting), slots(idle)
	}
	return w
}

// slots clamps a count into what a wire.Load may announce.
func slots(k int) uint32 { return uint32(min(max(k, 0), wire.MaxSlots)) }

// neighbourRecordsLocked returns the neighbour list as wire records: each
// neighbour whose addresses this node knows, heard from or not yet. A
// peer learns a new neighbour's certificate from others before it hears
// from it, and its addresses from these lists: without them it could not
// heartbeat the neighbour, nor route through it.
func (n *Node) neighbourRecordsLocked() []*wire.Peer {
	out := make([]*wire.Peer, 0, len(n.nbrs))
	for _, nb := range n.nbrs {
		if len(out) == wire.MaxNeighbours {
			break
		}
		if r := n.recordLocked(nb); len(r.Addrs) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// recordLocked is what the node tells others of neighbour nb, its idle
// crawl threads included, so that a peer two hops from it can share a
// waiting task with it (share.go).
func (n *Node) recordLocked(nb *neighbour) *wire.Peer {
	return &wire.Peer{
		Id:    []byte(nb.id),
		Addrs: wire.AddrBytes(n.h.Peerstore().Addrs(nb.id)),
		Load:  &wire.Load{Rtl: nb.load.RTL, Rpl: nb.load.RPL, Idle: slots(nb.idle)},
	}
}
