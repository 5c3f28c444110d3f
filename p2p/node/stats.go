package node

// Stats are the node's counters. Refusals are counted by the peer that
// refuses, whether the task came in an insert or a handover.
type Stats struct {
	Accepted  int64 // tasks queued here
	Forwarded int64 // inserts routed or balanced onward
	Refused   int64 // tasks refused: forged, altered or invalid
	// Genuine tasks refused (admission.Gate), by reason, named by
	// p2p/admission's sentinels.
	Expired     int64 // no lease on the host, or the lease ended (ErrNoLease)
	IssuedAhead int64 // issued more than MaxClockSkew after our clock (ErrIssuedAhead)
	Mistargeted int64 // signed target missing or not the insert's (ErrTargetMismatch)
	Misaimed    int64 // balanced here by a peer not holding the target (ErrMisaimed)
	Replayed    int64 // seen here before (ErrSeen)
	HandedIn    int64 // tasks received in handovers
	GivenBack   int64 // tasks of a leave given back to the manager (Returner)
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
	// Returned counts the tasks this node balanced or shared to a
	// neighbour that came back with the neighbour's zone when it left
	// (counted in HandedIn too).
	Returned int64
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
	s, c := n.stats, n.gate.Counts()
	s.Refused, s.Expired, s.IssuedAhead, s.Mistargeted = c.Invalid, c.Expired, c.IssuedAhead, c.Mistargeted
	s.Misaimed, s.Replayed, s.Returned = c.Misaimed, c.Replayed, c.Returned
	return s
}

// count adds k to counter c, one of n.stats's.
func (n *Node) count(c *int64, k int64) {
	n.mu.Lock()
	*c += k
	n.mu.Unlock()
}
