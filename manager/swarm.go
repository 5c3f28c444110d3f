package manager

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/hashring"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// Assignment names accepted by Options.Assignment.
const (
	// AssignCAN routes each task to the owner of its host's point in the
	// CAN space, with load balancing on insert: Hivecrawl's assignment.
	AssignCAN = "can"
	// AssignHash gives each host to a member peer by consistent hashing of
	// its name (paper 004, UbiCrawler), bypassing the CAN: the baseline
	// the swarm benchmark compares against.
	AssignHash = "hash"
)

// Swarm is the manager's view of the overlay, from the members' reports
// and the tasks it sent.
type Swarm struct {
	// Assignment is how hosts go to peers (AssignCAN or AssignHash).
	Assignment string      `json:"assignment"`
	Peers      []SwarmPeer `json:"peers"`
	Hosts      []SwarmHost `json:"hosts"`
	// Bounds are the CAN space's bounds hosts and members are mapped with
	// and BoundsEpoch their training (0: the operator's, untrained); nil
	// without coordinate-aware placement.
	Bounds      *coord.Bounds `json:"bounds,omitempty"`
	BoundsEpoch uint64        `json:"bounds_epoch,omitempty"`
}

// SwarmPeer is one member peer.
type SwarmPeer struct {
	ID    string      `json:"id"`
	Zones []entry.Box `json:"zones"`
	Coord []float64   `json:"coord,omitempty"`
}

// SwarmHost is one channel's host: its point in the CAN space and the
// peer that queued its latest task.
type SwarmHost struct {
	Channel string    `json:"channel"`
	Point   []float64 `json:"point"`
	Owner   string    `json:"owner,omitempty"`
	State   string    `json:"state,omitempty"`
}

// swarm gathers the swarm view.
func (m *Manager) swarm() (Swarm, error) {
	sw := Swarm{Assignment: m.opts.Assignment}
	if m.bounds != nil {
		b := m.bounds.Current()
		sw.Bounds, sw.BoundsEpoch = &b.Bounds, b.Epoch
	}
	members := m.mapMembers() // the certified zones, once the map has holders
	if len(members) == 0 {
		members = m.members.MemberInfos() // the zones members report
	}
	for _, mb := range members {
		sw.Peers = append(sw.Peers, SwarmPeer{ID: mb.ID.String(), Zones: mb.Zones, Coord: mb.Coord})
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
		sw.Hosts = append(sw.Hosts, SwarmHost{Channel: ch, Point: p, Owner: owner, State: t.State})
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

// SwarmMap is the swarm view drawn as SVG: the CAN space projected on its
// first two dimensions, each peer's zones in its colour, each host at its
// point with a line to the zone of the peer that queued its latest task.
type SwarmMap struct {
	Size  int
	Zones []MapZone
	Hosts []MapHost
	// Peers is the legend: one entry per member, in the order of Swarm.Peers.
	Peers []MapPeer
}

// MapPeer is one member in the drawing: its colour, where its host lines
// meet (the centre of its first zone) and how much it holds and crawls.
type MapPeer struct {
	Peer   string
	Colour string
	X, Y   float64
	// Placed is set when the peer has a zone to draw.
	Placed bool
	Zones  int
	Hosts  int
}

// MapZone is one zone rectangle.
type MapZone struct {
	X, Y, W, H float64
	Colour     string
	Peer       string
}

// MapHost is one host dot and its line to its peer.
type MapHost struct {
	X, Y, PX, PY float64
	Colour       string
	Channel      string
	Linked       bool
}

// swarmMap lays sw out in a square of size pixels.
func swarmMap(sw Swarm, size int) SwarmMap {
	sm := SwarmMap{Size: size}
	s := float64(size)
	index := map[string]int{} // peer ID → its entry in sm.Peers
	for i, p := range sw.Peers {
		c := peerColour(i)
		index[p.ID] = i
		sm.Peers = append(sm.Peers, MapPeer{Peer: shortID(p.ID), Colour: c, Zones: len(p.Zones)})
		for j, z := range p.Zones {
			if len(z.Lo) < 2 {
				continue
			}
			mz := MapZone{X: z.Lo[0] * s, Y: (1 - z.Hi[1]) * s, W: (z.Hi[0] - z.Lo[0]) * s, H: (z.Hi[1] - z.Lo[1]) * s,
				Colour: c, Peer: shortID(p.ID)}
			sm.Zones = append(sm.Zones, mz)
			if j == 0 {
				sm.Peers[i].X, sm.Peers[i].Y, sm.Peers[i].Placed = mz.X+mz.W/2, mz.Y+mz.H/2, true
			}
		}
	}
	for _, h := range sw.Hosts {
		if len(h.Point) < 2 {
			continue
		}
		mh := MapHost{X: h.Point[0] * s, Y: (1 - h.Point[1]) * s, Colour: "#777", Channel: h.Channel}
		if i, ok := index[h.Owner]; ok && sm.Peers[i].Placed {
			p := &sm.Peers[i]
			mh.PX, mh.PY, mh.Colour, mh.Linked = p.X, p.Y, p.Colour, true
			p.Hosts++
		}
		sm.Hosts = append(sm.Hosts, mh)
	}
	return sm
}

// palette tells up to ten peers apart at a glance (Tableau 10).
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// peerColour is the i-th peer's colour: the palette's, then hues spread
// by the golden angle.
func peerColour(i int) string {
	if i < len(palette) {
		return palette[i]
	}
	return fmt.Sprintf("hsl(%d,65%%,45%%)", (i*137)%360)
}

// shortID is the tail of a peer ID, as people tell peers apart.
func shortID(id string) string {
	if len(id) > 8 {
		return "…" + id[len(id)-6:]
	}
	return id
}
