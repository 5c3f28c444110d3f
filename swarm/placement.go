package swarm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// AddSeeds gives the running manager every web host as a seed, for a swarm
// started with Config.DeferSeeds once its overlay has settled.
func (s *Swarm) AddSeeds(ctx context.Context) error {
	args := []string{"seed", "add", "--manager", "--home", s.Manager.Home}
	for _, h := range s.Web.Hosts {
		args = append(args, h.URL)
	}
	if _, err := s.run(ctx, args...); err != nil {
		return fmt.Errorf("add seeds: %w", err)
	}
	return nil
}

// Placement says how far the clients have moved to their network
// coordinates (coordinate-aware placement, design.md §4).
type Placement struct {
	// Clients counts the clients that answered and hold a zone; Held
	// those among them whose coordinate, mapped into the CAN space, lies
	// in one of their zones.
	Clients, Held int
	// Moves counts the clients' rejoins at their mapped coordinate,
	// Drifts those after each client's first, and Trained the clients
	// using the manager's trained bounds.
	Moves, Drifts int64
	Trained       int
	// Outside lists, for each client that does not hold its mapped
	// point, how far the point lies from the client's nearest zone, as a
	// fraction of that zone's smallest width.
	Outside []float64
}

// Placement reads every client's zones and the point its coordinate maps
// to under its own bounds; a client without bounds holds no mapped point.
func (s *Swarm) Placement(ctx context.Context) (Placement, error) {
	var pl Placement
	for _, c := range s.Clients {
		st, err := c.Status(ctx)
		if err != nil {
			return pl, err
		}
		o := st.Overlay
		if o == nil || len(o.Zones) == 0 {
			continue
		}
		pl.Clients++
		pl.Moves += o.Moves
		pl.Drifts += o.Drifts
		if o.BoundsEpoch > 0 {
			pl.Trained++
		}
		p := can.Point(o.Mapped)
		held, near := false, math.Inf(1)
		for _, api := range o.Zones {
			z := can.Zone{Lo: api.Lo, Hi: api.Hi}
			if z.Contains(p) {
				held = true
				break
			}
			w := math.Inf(1)
			for i := range z.Lo {
				w = math.Min(w, z.Hi[i]-z.Lo[i])
			}
			near = math.Min(near, math.Sqrt(z.Dist2(p))/w)
		}
		if held {
			pl.Held++
		} else {
			pl.Outside = append(pl.Outside, near)
		}
	}
	return pl, nil
}

// HostPlacement says where the manager placed the web hosts, from its
// status: each host's point in the CAN space, the peer that queued its
// latest task and the members' reported coordinates.
type HostPlacement struct {
	// Hosts counts hosts whose latest task a member queued; Located those
	// among them whose point is not the hash of their name, so the
	// manager solved their coordinate from members' measurements.
	Hosts, Located int
	// OwnerDist is the mean distance in the CAN space from a located
	// host's point to its owner's mapped coordinate (over the owners that
	// reported one); PeerDist the mean distance from it to every
	// member's. Placement by coordinate makes
	// the first clearly smaller.
	OwnerDist, PeerDist float64
	// OwnerRTT is the mean emulated round trip in milliseconds between a
	// host and the client that queued its latest task, over all hosts
	// with an owner; ClientRTT the mean between a host and every client.
	OwnerRTT, ClientRTT float64
	// BoundsEpoch is the manager's training of the CAN space's bounds (0:
	// the operator's box, untrained).
	BoundsEpoch uint64
}

// HostPlacement reads the manager's swarm view and the clients' peer IDs,
// and maps the members' coordinates with the manager's bounds (without
// bounds, only the round trips are measured).
func (s *Swarm) HostPlacement(ctx context.Context) (HostPlacement, error) {
	var hp HostPlacement
	st, err := s.Manager.Status(ctx)
	if err != nil {
		return hp, err
	}
	ipOf := map[string]string{} // peer ID → client IP
	for _, c := range s.Clients {
		cs, err := c.Status(ctx)
		if err != nil {
			return hp, err
		}
		if cs.Overlay != nil {
			ipOf[cs.Overlay.Peer] = c.IP
		}
	}
	var rtts int
	hp.BoundsEpoch = st.Swarm.BoundsEpoch
	mapped := map[string]can.Point{}
	if b := st.Swarm.Bounds; b != nil {
		for _, p := range st.Swarm.Peers {
			if len(p.Coord) > 0 {
				mapped[p.ID] = b.Map(coord.Coord{Vec: p.Coord})
			}
		}
		if len(mapped) == 0 {
			return hp, errors.New("host placement: no member reported a coordinate")
		}
	}
	n := 0 // located hosts whose owner reported a coordinate
	for _, h := range st.Swarm.Hosts {
		if h.Owner == "" {
			continue
		}
		hp.Hosts++
		if own, all, ok := s.hostRTTs(h.Channel, ipOf[h.Owner]); ok {
			hp.OwnerRTT += own
			hp.ClientRTT += all
			rtts++
		}
		if samePoint(h.Point, can.HashPoint(h.Channel, len(h.Point))) {
			continue
		}
		hp.Located++
		own, ok := mapped[h.Owner]
		if !ok {
			continue
		}
		n++
		hp.OwnerDist += dist(h.Point, own)
		var sum float64
		for _, p := range mapped {
			sum += dist(h.Point, p)
		}
		hp.PeerDist += sum / float64(len(mapped))
	}
	if n > 0 {
		hp.OwnerDist /= float64(n)
		hp.PeerDist /= float64(n)
	}
	if rtts > 0 {
		hp.OwnerRTT /= float64(rtts)
		hp.ClientRTT /= float64(rtts)
	}
	return hp, nil
}

// hostRTTs returns the emulated round trips in milliseconds between the
// host of channel hostPort and the client at ownerIP, and their mean over
// every client.
func (s *Swarm) hostRTTs(hostPort, ownerIP string) (own, all float64, ok bool) {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		return 0, 0, false
	}
	d, ok := s.Layout.RTT(host, ownerIP)
	if !ok {
		return 0, 0, false
	}
	for _, c := range s.Clients {
		e, ok := s.Layout.RTT(host, c.IP)
		if !ok {
			return 0, 0, false
		}
		all += ms(e)
	}
	return ms(d), all / float64(len(s.Clients)), true
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func samePoint(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range min(len(a), len(b)) {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}
