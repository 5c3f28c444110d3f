package manager

import (
	"sort"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/manager/placement"
	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Assignment names accepted by Options.Placement.Assignment.
const (
	// AssignCAN routes each task to the owner of its host's point in the
	// CAN space, with load balancing on insert: Hivecrawl's assignment.
	AssignCAN = "can"
	// AssignHash gives each host to a member peer by consistent hashing of
	// its name (paper 004, UbiCrawler), bypassing the CAN: the baseline
	// the swarm benchmark compares against.
	AssignHash = "hash"
)

// swarm gathers the swarm view.
func (m *Manager) swarm() (operator.Swarm, error) {
	sw := operator.Swarm{Assignment: m.opts.Placement.Assignment}
	if m.bounds != nil {
		b := m.bounds.Current()
		sw.Bounds, sw.BoundsEpoch = &b.Bounds, b.Epoch
	}
	members := m.mapMembers() // the certified zones, once the map has holders
	if len(members) == 0 {
		members = m.members.MemberInfos() // the zones members report
	}
	for _, mb := range members {
		sw.Peers = append(sw.Peers, operator.SwarmPeer{ID: mb.ID.String(), Zones: mb.Zones, Coord: mb.Coord})
	}
	sort.Slice(sw.Peers, func(i, j int) bool { return sw.Peers[i].ID < sw.Peers[j].ID })
	latest, err := m.db.Latest()
	if err != nil {
		return sw, err
	}
	for ch, t := range latest {
		p, ok := m.sub.Cached(ch)
		if !ok {
			p = can.HashPoint(ch, m.sub.Options().Dim)
		}
		owner := t.Owner
		if t.Peer != "" {
			owner = t.Peer
		}
		sw.Hosts = append(sw.Hosts, operator.SwarmHost{Channel: ch, Point: p, Owner: owner, State: t.State})
	}
	sort.Slice(sw.Hosts, func(i, j int) bool { return sw.Hosts[i].Channel < sw.Hosts[j].Channel })
	return sw, nil
}

// hashDirect is the consistent-hashing assignment (placement.HashOwner)
// over every holder of the zone map with the zones the map certifies,
// or, while the map is empty, every member whose membership has not
// lapsed with the zones it reports, connected at this instant or not: a
// ring that dropped a member for a moment's disconnection would move its
// hosts to the others and back.
func (m *Manager) hashDirect(hostPort string) (peer.ID, can.Point, bool) {
	ms := m.mapMembers()
	if len(ms) == 0 {
		ms = m.members.Reported()
	}
	return placement.HashOwner(ms, hostPort)
}
