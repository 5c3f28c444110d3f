package zones

import (
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Holders returns the peers holding zones, in the map's order.
func (a *Authority) Holders() []peer.ID {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := a.m.Holders()
	out := make([]peer.ID, 0, len(ids))
	for _, id := range ids {
		if p, err := peer.Decode(string(id)); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Len returns the number of holders.
func (a *Authority) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Len()
}

// Zones returns the zones id holds, in path order.
func (a *Authority) Zones(id peer.ID) []can.Zone {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Zones(pid(id))
}

// Anchor returns a point routed to id while it keeps its zones
// (can.Map.Anchor): where to aim work meant for id itself. ok is false
// when id holds no zone.
func (a *Authority) Anchor(id peer.ID) (can.Point, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Anchor(pid(id))
}

// Owner returns the holder of the zone containing p (clamped into the
// space); ok is false while the map is empty or for a point of another
// dimension.
func (a *Authority) Owner(p can.Point) (peer.ID, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, ok := a.m.Owner(p)
	if !ok {
		return "", false
	}
	o, err := peer.Decode(string(id))
	return o, err == nil
}

// Dim returns the space's dimension.
func (a *Authority) Dim() int { return a.opts.Dim }

// TTL returns how long a certificate lasts from its holder's last renewal.
func (a *Authority) TTL() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.TTL()
}

// Stats returns what the authority did so far.
func (a *Authority) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.stats
	s.Signed, s.Reused = a.sign.made, a.sign.hits
	return s
}

// Neighbours returns the holders of zones abutting id's.
func (a *Authority) Neighbours(id peer.ID) []peer.ID {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []peer.ID
	for _, n := range a.m.Neighbours(pid(id)) {
		if p, err := peer.Decode(string(n)); err == nil {
			out = append(out, p)
		}
	}
	return out
}
