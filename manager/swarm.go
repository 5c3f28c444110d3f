package manager

import (
	"cmp"
	"slices"
	"sort"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/hashring"
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

// hashDirect is the consistent-hashing assignment: hosts go to members by
// a ring of their peer IDs weighted by their reported capacity (1 when
// they report none), each to a point of its first zone so the member
// queues the task itself. The ring holds every holder of the zone map
// with the zones the map certifies, or, while the map is empty, every
// member whose membership has not lapsed with the zones it reports,
// connected at this instant or not: a ring that dropped a member for a
// moment's disconnection would move its hosts to the others and back.
func (m *Manager) hashDirect(hostPort string) (peer.ID, can.Point, bool) {
	ms := m.mapMembers()
	if len(ms) == 0 {
		ms = m.members.Reported()
	}
	slices.SortFunc(ms, func(a, b members.Member) int { return cmp.Compare(a.ID, b.ID) })
	ring := hashring.New(0)
	byID := map[can.PeerID]members.Member{}
	for _, mb := range ms {
		if len(mb.Zones) == 0 {
			continue
		}
		w := mb.Capacity
		if w <= 0 {
			w = 1
		}
		if err := ring.Add(can.PeerID(mb.ID), w); err != nil {
			continue
		}
		byID[can.PeerID(mb.ID)] = mb
	}
	id, ok := ring.Owner(hostPort)
	if !ok {
		return "", nil, false
	}
	return peer.ID(id), centre(byID[id].Zones[0]), true
}
