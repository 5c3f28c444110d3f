package node

import "github.com/hivecrawl/hivecrawl/p2p/admission"

// Stats are the node's counters. Refusals are counted by the peer that
// refuses, whether the task came in an insert or a handover.
type Stats struct {
	// Counts are the tasks the node's admission refused, by reason, and
	// those it passed on that came back with a leaving neighbour's zone
	// (counted in HandedIn too).
	admission.Counts
	Accepted  int64 // tasks queued here
	Forwarded int64 // inserts routed or balanced onward
	HandedIn  int64 // tasks received in handovers
	GivenBack int64 // tasks of a leave given back to the manager (Returner)
	// HandoversRefused counts handovers refused whole: the sender shows
	// no zone the manager has since certified to this peer, or we are
	// leaving.
	HandoversRefused int64
	// Heartbeats counts the heartbeat exchanges this node started and
	// completed with neighbours.
	Heartbeats int64
	// Moves counts the moves to the node's mapped coordinate (drift.go):
	// the first, then one for each time its coordinate or the bounds
	// moved it out of its zones (Drifts).
	Moves int64
	// Shared counts the waiting tasks this node gave to peers with idle
	// crawl threads, neighbours or two hops away (share.go).
	Shared int64
	// Reports counts the neighbours this node reported to the manager as
	// silent, Renewals the renewals of its certificates, and Rejoins the
	// joins after it found itself without a zone.
	Reports, Renewals, Rejoins int64
	// CertsRefused counts zone certificates refused: forged, expired, or
	// older than one already seen for the zone.
	CertsRefused int64
}

// Drifts counts the moves after the first: the drift rejoins of a node
// already placed by its coordinate.
func (s Stats) Drifts() int64 { return max(s.Moves-1, 0) }

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.statsLocked()
}

// statsLocked returns the node's counters with its gate's. n.mu must be
// held.
func (n *Node) statsLocked() Stats {
	s := n.stats
	s.Counts = n.gate.Counts()
	return s
}

// count adds k to counter c, one of n.stats's.
func (n *Node) count(c *int64, k int64) {
	n.mu.Lock()
	*c += k
	n.mu.Unlock()
}
