package can

import "math"

// DefaultTTL is how many times an insert may be forwarded by load balancing
// on insert (paper 002 §5.3: TTL 3 worked best).
const DefaultTTL = 3

// Capacity is what a crawler can give: the download bandwidth the crawling
// process may use in Mb/s and its memory in GB. min(BWDownload, MemoryGB)
// scales every load figure (paper 002 §4.2).
type Capacity struct {
	BWDownload float64 `json:"bw_download_mbps"`
	MemoryGB   float64 `json:"memory_gb"`
}

func (c Capacity) scale() float64 { return math.Min(c.BWDownload, c.MemoryGB) }

// Load is a crawler's load as its heartbeats announce it.
type Load struct {
	// RTL is the relative task load N_pieces / min(BW_download, S_memory).
	RTL float64 `json:"rtl"`
	// RPL is the relative page load Σ N_pages / min(BW_download, S_memory).
	RPL float64 `json:"rpl"`
}

// NewLoad computes a crawler's Load from the number of hosts or pieces it
// holds (queued and running), the sum of their expected page counts and its
// capacity. A crawler without capacity has infinite load as soon as it holds
// anything.
func NewLoad(pieces int, pages int64, c Capacity) Load {
	return Load{RTL: relative(float64(pieces), c), RPL: relative(float64(pages), c)}
}

// Threshold returns the overloading threshold OT = N_pieces^max /
// min(BW_download, S_memory) for a contributor who allows maxPieces hosts or
// pieces at once (OT ≥ CL; the client lowers its connection limit CL to OT
// otherwise).
func Threshold(maxPieces int, c Capacity) float64 {
	return relative(float64(maxPieces), c)
}

func relative(n float64, c Capacity) float64 {
	s := c.scale()
	switch {
	case n == 0:
		return 0
	case !(s > 0):
		return math.Inf(1)
	}
	return n / s
}

// Decision is the outcome of DecideInsert: accept the task here, or forward
// it to To with TTL left.
type Decision struct {
	Accept bool
	To     PeerID
	TTL    int
}

// DecideInsert is load balancing on insert at a peer that received an insert
// with ttl forwards left: with ttl ≤ 0 it must accept; otherwise, if its RTL
// exceeds the overloading threshold ot, it forwards to the neighbour with
// the lowest RPL in its last heartbeat (ties to the smaller PeerID) with ttl
// decremented. It accepts when not overloaded, when it knows no neighbour,
// or when no neighbour's RPL is below its own (forwarding would not help).
// The networked peer and the simulator both call it; it is pure.
func DecideInsert(self Load, ot float64, nbrs []NeighbourInfo, ttl int) Decision {
	if ttl <= 0 || !(self.RTL > ot) {
		return Decision{Accept: true}
	}
	best := -1
	for i, n := range nbrs {
		if best < 0 || n.Load.RPL < nbrs[best].Load.RPL || (n.Load.RPL == nbrs[best].Load.RPL && n.ID < nbrs[best].ID) {
			best = i
		}
	}
	if best < 0 || !(nbrs[best].Load.RPL < self.RPL) {
		return Decision{Accept: true}
	}
	return Decision{To: nbrs[best].ID, TTL: ttl - 1}
}
