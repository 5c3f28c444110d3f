package can

import (
	"fmt"
	"slices"
)

// Overlay is the global model of a CAN: every peer and its zones, kept in a
// binary partition tree whose leaves are the zones. Tests and the simulator
// drive it; a networked peer holds only its local view (see NextHop). The
// zero value is not usable; call NewOverlay. Not safe for concurrent use.
type Overlay struct {
	dim   int
	root  *node
	peers map[PeerID]*peer
	ids   []PeerID // sorted, so iteration is deterministic
	buf   []NeighbourInfo
}

// node is a node of the partition tree. Leaves are zones, each with an owner
// and the list of leaves that abut it.
type node struct {
	zone        Zone
	parent      *node
	left, right *node // both nil for a leaf; left is the low half
	owner       *peer
	nbrs        []*node
}

func (n *node) leaf() bool { return n.left == nil }

type peer struct {
	id    PeerID
	point Point
	zones []*node
	cache []Zone // the zones' values; nil after any change to zones
}

func (p *peer) zoneList() []Zone {
	if p.cache == nil {
		p.cache = make([]Zone, len(p.zones))
		for i, n := range p.zones {
			p.cache[i] = n.zone
		}
	}
	return p.cache
}

func (p *peer) addZone(n *node) {
	p.zones = append(p.zones, n)
	p.cache = nil
}

// Handover records that a zone changed hands, so callers can move the tasks
// that lie in it. From is empty for the first peer's zone.
type Handover struct {
	Zone     Zone
	From, To PeerID
}

// NewOverlay returns an empty overlay over [0,1]^dim (dim ≤ 0 means
// DefaultDim).
func NewOverlay(dim int) *Overlay {
	if dim <= 0 {
		dim = DefaultDim
	}
	return &Overlay{dim: dim, root: &node{zone: Unit(dim)}, peers: make(map[PeerID]*peer)}
}

// Dim returns the dimension of the space.
func (o *Overlay) Dim() int { return o.dim }

// Len returns the number of peers.
func (o *Overlay) Len() int { return len(o.peers) }

// Peers returns the peers in ascending order. The slice is shared; do not
// modify it.
func (o *Overlay) Peers() []PeerID { return o.ids }

// Has reports whether id is in the overlay.
func (o *Overlay) Has(id PeerID) bool { _, ok := o.peers[id]; return ok }

// Point returns the point id joined at.
func (o *Overlay) Point(id PeerID) (Point, bool) {
	p, ok := o.peers[id]
	if !ok {
		return nil, false
	}
	return p.point, true
}

// Zones returns the zones id holds.
func (o *Overlay) Zones(id PeerID) []Zone {
	p, ok := o.peers[id]
	if !ok {
		return nil
	}
	zs := make([]Zone, len(p.zones))
	for i, n := range p.zones {
		zs[i] = n.zone
	}
	return zs
}

// Volume returns the total volume of id's zones.
func (o *Overlay) Volume(id PeerID) float64 {
	p, ok := o.peers[id]
	if !ok {
		return 0
	}
	return p.volume()
}

func (p *peer) volume() float64 {
	v := 0.0
	for _, n := range p.zones {
		v += n.zone.Volume()
	}
	return v
}

// Neighbours returns the peers owning a zone that abuts one of id's zones,
// in ascending order.
func (o *Overlay) Neighbours(id PeerID) []PeerID {
	p, ok := o.peers[id]
	if !ok {
		return nil
	}
	var out []PeerID
	for _, z := range p.zones {
		for _, n := range z.nbrs {
			if n.owner != p {
				out = append(out, n.owner.id)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NeighbourInfos returns id's neighbour table as a networked peer would
// learn it from heartbeats, with the loads load reports (nil: zero loads).
func (o *Overlay) NeighbourInfos(id PeerID, load func(PeerID) Load) []NeighbourInfo {
	ids := o.Neighbours(id)
	out := make([]NeighbourInfo, len(ids))
	for i, nid := range ids {
		out[i] = NeighbourInfo{ID: nid, Zones: o.Zones(nid)}
		if load != nil {
			out[i].Load = load(nid)
		}
	}
	return out
}

// Owner returns the peer whose zone contains p; ok is false in an empty
// overlay or for a point of the wrong dimension. Points outside the box are
// clamped first.
func (o *Overlay) Owner(p Point) (id PeerID, ok bool) {
	if len(o.peers) == 0 || len(p) != o.dim {
		return "", false
	}
	return o.leafAt(p).owner.id, true
}

func (o *Overlay) leafAt(p Point) *node {
	n := o.root
	for !n.leaf() {
		k := n.splitDim()
		if p[k] >= n.right.zone.Lo[k] {
			n = n.right
		} else {
			n = n.left
		}
	}
	return n
}

func (n *node) splitDim() int { return n.zone.SplitDim() }

// Join adds peer id at point p (clamped into the box): the owner of p splits
// the zone holding p in half along its next dimension and hands over the
// half containing p. The first peer gets the whole space. The returned
// Handover says which zone moved from whom.
func (o *Overlay) Join(id PeerID, p Point) (Handover, error) {
	if len(p) != o.dim {
		return Handover{}, fmt.Errorf("join %s with a %d-dimensional point: %w", id, len(p), ErrDimension)
	}
	if _, ok := o.peers[id]; ok {
		return Handover{}, fmt.Errorf("join %s: %w", id, ErrPeerExists)
	}
	p = Clamp(p)
	np := &peer{id: id, point: p}
	o.addPeer(np)
	if len(o.peers) == 1 {
		o.root = &node{zone: Unit(o.dim), owner: np}
		np.zones = []*node{o.root}
		return Handover{Zone: o.root.zone, To: id}, nil
	}
	leaf := o.leafAt(p)
	old := leaf.owner
	o.split(leaf)
	give, keep := leaf.right, leaf.left
	if leaf.left.zone.Contains(p) {
		give, keep = leaf.left, leaf.right
	}
	keep.owner, give.owner = old, np
	old.replaceZone(leaf, keep)
	np.zones = []*node{give}
	return Handover{Zone: give.zone, From: old.id, To: id}, nil
}

func (o *Overlay) addPeer(p *peer) {
	o.peers[p.id] = p
	i, _ := slices.BinarySearch(o.ids, p.id)
	o.ids = slices.Insert(o.ids, i, p.id)
}

func (o *Overlay) removePeer(p *peer) {
	delete(o.peers, p.id)
	if i, ok := slices.BinarySearch(o.ids, p.id); ok {
		o.ids = slices.Delete(o.ids, i, i+1)
	}
}

func (p *peer) replaceZone(old, with *node) {
	for i, z := range p.zones {
		if z == old {
			p.zones[i] = with
			p.cache = nil
			return
		}
	}
	p.addZone(with)
}

func (p *peer) dropZone(z *node) {
	for i, x := range p.zones {
		if x == z {
			p.zones = slices.Delete(p.zones, i, i+1)
			p.cache = nil
			return
		}
	}
}

// split turns leaf n into an inner node with two leaf children and rewires
// the neighbour lists: each child's neighbours are its sibling and those of
// n's neighbours that abut it.
func (o *Overlay) split(n *node) {
	lo, hi := n.zone.Split()
	l := &node{zone: lo, parent: n}
	r := &node{zone: hi, parent: n}
	l.nbrs = append(l.nbrs, r)
	r.nbrs = append(r.nbrs, l)
	for _, m := range n.nbrs {
		m.nbrs = removeNode(m.nbrs, n)
		if Abuts(m.zone, lo) {
			l.nbrs = append(l.nbrs, m)
			m.nbrs = append(m.nbrs, l)
		}
		if Abuts(m.zone, hi) {
			r.nbrs = append(r.nbrs, m)
			m.nbrs = append(m.nbrs, r)
		}
	}
	n.left, n.right, n.owner, n.nbrs = l, r, nil, nil
}

// merge turns the inner node n, whose children are leaves, back into a
// leaf owned by owner.
func (o *Overlay) merge(n *node, owner *peer) {
	l, r := n.left, n.right
	for _, c := range [2]*node{l, r} {
		for _, m := range c.nbrs {
			if m == l || m == r {
				continue
			}
			m.nbrs = removeNode(m.nbrs, c)
			if !slices.Contains(m.nbrs, n) {
				m.nbrs = append(m.nbrs, n)
				n.nbrs = append(n.nbrs, m)
			}
		}
	}
	n.left, n.right, n.owner = nil, nil, owner
}

func removeNode(s []*node, n *node) []*node {
	for i, x := range s {
		if x == n {
			s[i] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	return s
}
