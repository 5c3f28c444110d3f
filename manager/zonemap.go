package manager

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// zoneExpireEvery is how often the manager removes the holders whose
// zone certificates expired: every half renewal period, so a dead
// member's zones reach its heirs at most that long after its
// certificates lapse.
const zoneExpireEvery = entry.RenewEvery / 2

// serveZones expires the zone map's lapsed holders every
// zoneExpireEvery until ctx ends.
func (m *Manager) serveZones(ctx context.Context) {
	t := time.NewTicker(zoneExpireEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		gone, err := m.zones.Expire()
		if err != nil {
			m.log.Warn("Zone map not expired", "err", err)
			continue
		}
		if len(gone) > 0 {
			m.log.Info("Zones of members that stopped renewing handed to their heirs", "members", len(gone))
		}
	}
}

// mapMembers returns the zone map's holders, each with the zones the map
// gives it and what it last reported of itself (coordinate, capacity),
// in the map's order; none while the map is empty or absent.
func (m *Manager) mapMembers() []members.Member {
	if m.zones == nil {
		return nil
	}
	ids := m.zones.Holders()
	if len(ids) == 0 {
		return nil
	}
	reported := map[string]members.Member{}
	for _, mb := range m.members.Reported() {
		reported[mb.ID.String()] = mb
	}
	out := make([]members.Member, len(ids))
	for i, id := range ids {
		mb := reported[id.String()]
		mb.ID = id
		mb.Zones = nil
		for _, z := range m.zones.Zones(id) {
			mb.Zones = append(mb.Zones, entry.Box{Lo: z.Lo, Hi: z.Hi})
		}
		out[i] = mb
	}
	return out
}

// mapAnchor returns a point the zone map routes to member id: where the
// locator places a host near that member (none without a map).
func (m *Manager) mapAnchor(id peer.ID) (can.Point, bool) {
	if m.zones == nil {
		return nil, false
	}
	return m.zones.Anchor(id)
}
