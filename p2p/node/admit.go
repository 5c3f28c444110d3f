package node

import (
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/libp2p/go-libp2p/core/peer"
)

// A node applies the admission rules (admission.Gate) where it would
// queue a task or balance it onward as its target's owner. A handed-over
// task is checked for its lease, issue time and seen before, not for its
// target: the heir takes the zone. Intermediate peers that only route an
// insert check nothing.

// checkPath applies admission.CheckPath to the path of certificates a
// load-balanced insert from peer from carries, with this node's book.
func (n *Node) checkPath(raw [][]byte, target can.Point, from peer.ID) error {
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := admission.CheckPath(n.book, raw, target, n.cfg.Dim, n.h.ID(), from, now); err != nil {
		return err
	}
	n.refreshLocked(now)
	return nil
}
