package host

import (
	"fmt"
	"maps"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
)

// NeighbourTag is the connection-manager protection tag of CAN neighbours:
// a protected connection is never trimmed.
const NeighbourTag = "hivecrawl-can-neighbour"

// gracePeriod is how long a new connection is safe from trimming.
const gracePeriod = 20 * time.Second

func newConnManager(l Limits) (*connmgr.BasicConnMgr, error) {
	cm, err := connmgr.NewConnManager(l.LowWater, l.HighWater, connmgr.WithGracePeriod(gracePeriod))
	if err != nil {
		return nil, fmt.Errorf("connection manager: %w", err)
	}
	return cm, nil
}

// ProtectNeighbour keeps the connection to a CAN neighbour open whatever the
// connection manager's watermarks.
func (h *Host) ProtectNeighbour(id peer.ID) {
	h.ConnManager().Protect(id, NeighbourTag)
}

// UnprotectNeighbour lifts ProtectNeighbour once id is no longer a neighbour.
// It reports whether id is still protected under another tag.
func (h *Host) UnprotectNeighbour(id peer.ID) bool {
	return h.ConnManager().Unprotect(id, NeighbourTag)
}

// IsNeighbourProtected reports whether id is protected as a CAN neighbour.
func (h *Host) IsNeighbourProtected(id peer.ID) bool {
	return h.ConnManager().IsProtected(id, NeighbourTag)
}

// Passing marks id as a peer dialled for one purpose only, a round-trip
// sample or one message: an idle connection to it would count against
// the volunteer's connection cap on both sides. ClosePassing closes it.
func (h *Host) Passing(id peer.ID) {
	h.passingMu.Lock()
	defer h.passingMu.Unlock()
	if _, ok := h.passing[id]; !ok {
		h.passing[id] = time.Now()
	}
}

// ClosePassing closes the connections to the peers marked Passing that
// carry no stream (one may carry a peer measuring a host for a locator,
// or an insert), and every connection of a peer marked longer than stuck
// ago, whose streams are stuck. A peer keep reports in use again (a
// neighbour, one being sampled) is unmarked and left open. It returns how
// many peers stay marked.
func (h *Host) ClosePassing(stuck time.Duration, keep func(peer.ID) bool) int {
	h.passingMu.Lock()
	done := maps.Clone(h.passing) // keep's lock may be held around Passing
	h.passingMu.Unlock()
	now := time.Now()
	for id, since := range done {
		if keep(id) {
			continue
		}
		for _, c := range h.Network().ConnsToPeer(id) {
			if len(c.GetStreams()) == 0 || now.Sub(since) > stuck {
				c.Close()
			} else {
				delete(done, id) // the next call closes it
			}
		}
	}
	h.passingMu.Lock()
	defer h.passingMu.Unlock()
	for id := range done {
		delete(h.passing, id)
	}
	return len(h.passing)
}

// PassingPeers returns how many peers are marked Passing and not yet
// closed.
func (h *Host) PassingPeers() int {
	h.passingMu.Lock()
	defer h.passingMu.Unlock()
	return len(h.passing)
}
