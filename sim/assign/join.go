package assign

import (
	"math"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// joinPoint is where a crawler whose coordinate maps to p joins under
// Config.LoadJoin: among the zones of p's owner and of its neighbours, the
// one whose units hold the most pages (ties to the zone holding p), and in
// it the point closest to p. CAN's join then splits that zone, so zone
// splits follow load as well as joins, while the crawler stays next to its
// own point: the zone it gets abuts or holds the one its point lies in.
// This is CAN's "more uniform partitioning" (Ratnasamy et al. §3.7), which
// compares zone volumes, with the pages of the hosts located in each zone
// in place of volume. With an empty overlay it returns p.
func (e *engine) joinPoint(p can.Point) can.Point {
	owner, ok := e.ov.Owner(p)
	if !ok {
		return p
	}
	var (
		best     can.Zone
		bestLoad = -1.0
	)
	for _, id := range append([]can.PeerID{owner}, e.ov.Neighbours(owner)...) {
		for _, z := range e.ov.Zones(id) {
			l := e.zonePages(z)
			if l > bestLoad || (l == bestLoad && z.Contains(p)) {
				best, bestLoad = z, l
			}
		}
	}
	return closestIn(best, p)
}

// zonePages is the pages of the units whose host points lie in z: the load
// the zone draws each round.
func (e *engine) zonePages(z can.Zone) float64 {
	l := 0.0
	for _, un := range e.units {
		if z.Contains(e.sc.World.HostPoint[un.Host]) {
			l += float64(un.Pages)
		}
	}
	return l
}

// closestIn returns the point of z closest to p, inside z's half-open
// upper faces.
func closestIn(z can.Zone, p can.Point) can.Point {
	if z.Contains(p) {
		return p
	}
	q := make(can.Point, len(p))
	for i, v := range p {
		lo, hi := z.Lo[i], z.Hi[i]
		switch {
		case v < lo:
			v = lo
		case v >= hi && hi < 1:
			v = math.Nextafter(hi, lo)
		case v > hi:
			v = hi
		}
		q[i] = v
	}
	return q
}
