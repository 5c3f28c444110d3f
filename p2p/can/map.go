package can

import (
	"fmt"
	"slices"
	"time"
)

// Map is the authority's model of the CAN: the split tree that tiles the
// box, each leaf held by one peer under an epoch and an expiry, as a
// manager certifies zones. Every change (Join, Leave, Expire, Move, Renew)
// takes the time and returns the leaves it changed, which are exactly the
// certificates to sign and push.
//
// Invariants, checked by Check after every operation in the property
// tests: the leaves tile [0,1]^d (no overlap, no gap); every leaf of a
// non-empty map has a holder; no holder holds both halves of a split (they
// merge back); every leaf of a holder has the holder's expiry. Epochs come
// from one counter: a leaf whose holder or shape changes gets the next
// epoch, so a certificate's epoch is higher than that of every certificate
// issued before it for the same zone or one overlapping it. A renewal
// keeps the epoch and moves the expiry.
//
// Deterministic: the same operations give the same map, and a map decoded
// with UnmarshalBinary goes on exactly as the original. Ties are broken by
// the order (volume, PeerID) stated on each operation. Not safe for
// concurrent use.
type Map struct {
	dim     int
	ttl     time.Duration
	epoch   uint64 // the last epoch issued
	root    *mnode
	holders map[PeerID]*holder
	ids     []PeerID // sorted
	buf     []NeighbourInfo
}

// Leaf is one zone of the map and what a certificate for it says: its
// path, its holder, its epoch and its expiry.
type Leaf struct {
	Path   Path
	Holder PeerID
	Epoch  uint64
	Expiry time.Time
}

// Zone returns the box l covers in the d-dimensional space.
func (l Leaf) Zone(d int) Zone { return l.Path.Zone(d) }

// mnode is a node of the split tree. Leaves are zones, each with a holder,
// an epoch and the leaves that abut it.
type mnode struct {
	path        Path
	zone        Zone
	parent      *mnode
	left, right *mnode // both nil for a leaf; left is the low half
	holder      *holder
	epoch       uint64
	nbrs        []*mnode
}

func (n *mnode) leaf() bool { return n.left == nil }

func (n *mnode) sibling() *mnode {
	if n.parent == nil {
		return nil
	}
	if n.parent.left == n {
		return n.parent.right
	}
	return n.parent.left
}

// holder is a peer holding zones.
type holder struct {
	id     PeerID
	expiry time.Time
	// point is where it joined or last moved, which a later join keeps
	// in its zones where it can (join); nil in a map decoded from the
	// first encoding, which did not keep points.
	point  Point
	leaves []*mnode // sorted by path
	cache  []Zone   // the leaves' zones; nil after any change to leaves
}

func (h *holder) add(n *mnode) {
	i, _ := slices.BinarySearchFunc(h.leaves, n.path, func(x *mnode, p Path) int {
		switch {
		case x.path < p:
			return -1
		case x.path > p:
			return 1
		}
		return 0
	})
	h.leaves = slices.Insert(h.leaves, i, n)
	h.cache = nil
}

func (h *holder) drop(n *mnode) {
	if i := slices.Index(h.leaves, n); i >= 0 {
		h.leaves = slices.Delete(h.leaves, i, i+1)
		h.cache = nil
	}
}

// volume sums the holder's zones in path order, so a decoded map adds the
// same floats in the same order.
func (h *holder) volume() float64 {
	v := 0.0
	for _, n := range h.leaves {
		v += n.zone.Volume()
	}
	return v
}

func (h *holder) zones() []Zone {
	if h.cache == nil {
		h.cache = make([]Zone, len(h.leaves))
		for i, n := range h.leaves {
			h.cache[i] = n.zone
		}
	}
	return h.cache
}

// NewMap returns an empty map over [0,1]^dim (dim ≤ 0 means DefaultDim)
// whose certificates last ttl from the holder's last join, move or renewal
// (ttl ≤ 0 means one minute).
func NewMap(dim int, ttl time.Duration) *Map {
	if dim <= 0 {
		dim = DefaultDim
	}
	if ttl <= 0 {
		ttl = time.Minute
	}
	return &Map{dim: dim, ttl: ttl, root: &mnode{zone: Unit(dim)}, holders: make(map[PeerID]*holder)}
}

// Dim returns the dimension of the space.
func (m *Map) Dim() int { return m.dim }

// TTL returns how long a certificate lasts from its holder's last renewal.
func (m *Map) TTL() time.Duration { return m.ttl }

// Epoch returns the last epoch issued (0 before the first join).
func (m *Map) Epoch() uint64 { return m.epoch }

// Len returns the number of holders.
func (m *Map) Len() int { return len(m.holders) }

// Holders returns the holders in ascending order. The slice is shared; do
// not modify it.
func (m *Map) Holders() []PeerID { return m.ids }

// Has reports whether id holds zones.
func (m *Map) Has(id PeerID) bool { _, ok := m.holders[id]; return ok }

// Expiry returns when id's certificates expire unless renewed.
func (m *Map) Expiry(id PeerID) (time.Time, bool) {
	h, ok := m.holders[id]
	if !ok {
		return time.Time{}, false
	}
	return h.expiry, true
}

// Anchor returns a point the map routes to id for as long as id keeps its
// zones: its own point (where it joined or last moved) while one of its
// zones holds it, which later joins leave it (Join), else the centre of
// its first zone. ok is false when id holds no zone.
func (m *Map) Anchor(id PeerID) (Point, bool) {
	h, ok := m.holders[id]
	if !ok {
		return nil, false
	}
	for _, n := range h.leaves {
		if h.point != nil && n.zone.Contains(h.point) {
			return slices.Clone(h.point), true
		}
	}
	return h.leaves[0].zone.Centre(), true
}

// Point returns where id joined or last moved, false when id holds no
// zone or its point is not known (a map stored before points were kept).
func (m *Map) Point(id PeerID) (Point, bool) {
	h, ok := m.holders[id]
	if !ok || h.point == nil {
		return nil, false
	}
	return slices.Clone(h.point), true
}

// Zones returns the zones id holds, in path order.
func (m *Map) Zones(id PeerID) []Zone {
	h, ok := m.holders[id]
	if !ok {
		return nil
	}
	return slices.Clone(h.zones())
}

// Held returns id's leaves, in path order.
func (m *Map) Held(id PeerID) []Leaf {
	h, ok := m.holders[id]
	if !ok {
		return nil
	}
	out := make([]Leaf, len(h.leaves))
	for i, n := range h.leaves {
		out[i] = n.cert()
	}
	return out
}

// Volume returns the total volume of id's zones.
func (m *Map) Volume(id PeerID) float64 {
	h, ok := m.holders[id]
	if !ok {
		return 0
	}
	return h.volume()
}

// Leaves returns every leaf in path order (none for an empty map).
func (m *Map) Leaves() []Leaf {
	var out []Leaf
	if len(m.holders) == 0 {
		return out
	}
	var walk func(n *mnode)
	walk = func(n *mnode) {
		if n.leaf() {
			out = append(out, n.cert())
			return
		}
		walk(n.left)
		walk(n.right)
	}
	walk(m.root)
	return out
}

func (n *mnode) cert() Leaf {
	return Leaf{Path: n.path, Holder: n.holder.id, Epoch: n.epoch, Expiry: n.holder.expiry}
}

// Certify returns what a certificate for the leaf at path says. It fails
// with ErrNoLeaf when path is not a leaf of the map.
func (m *Map) Certify(path Path) (Leaf, error) {
	if err := path.Validate(); err != nil {
		return Leaf{}, fmt.Errorf("certify: %w", err)
	}
	n := m.root
	for i := 0; i < len(path) && !n.leaf(); i++ {
		if path[i] == '0' {
			n = n.left
		} else {
			n = n.right
		}
	}
	if !n.leaf() || n.path != path || n.holder == nil {
		return Leaf{}, fmt.Errorf("certify %.40q: %w", string(path), ErrNoLeaf)
	}
	return n.cert(), nil
}

// At returns the leaf holding point p (clamped into the box); ok is false
// for an empty map or a point of the wrong dimension.
func (m *Map) At(p Point) (Leaf, bool) {
	if len(m.holders) == 0 || len(p) != m.dim {
		return Leaf{}, false
	}
	return m.leafAt(Clamp(p)).cert(), true
}

// Owner returns the holder of the zone containing p (clamped into the
// box); ok is false for an empty map or a point of the wrong dimension.
func (m *Map) Owner(p Point) (PeerID, bool) {
	if len(m.holders) == 0 || len(p) != m.dim {
		return "", false
	}
	return m.leafAt(Clamp(p)).holder.id, true
}

// Neighbours returns the holders of zones that abut one of id's zones, in
// ascending order.
func (m *Map) Neighbours(id PeerID) []PeerID {
	h, ok := m.holders[id]
	if !ok {
		return nil
	}
	var out []PeerID
	for _, z := range h.leaves {
		for _, n := range z.nbrs {
			if n.holder != h {
				out = append(out, n.holder.id)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NeighbourInfos returns id's neighbour table as a networked peer learns
// it from heartbeats, with the loads load reports (nil: zero loads).
func (m *Map) NeighbourInfos(id PeerID, load func(PeerID) Load) []NeighbourInfo {
	ids := m.Neighbours(id)
	out := make([]NeighbourInfo, len(ids))
	for i, nid := range ids {
		out[i] = NeighbourInfo{ID: nid, Zones: m.Zones(nid)}
		if load != nil {
			out[i].Load = load(nid)
		}
	}
	return out
}
