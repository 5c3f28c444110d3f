package can

import (
	"fmt"
	"slices"
	"time"
)

// Join adds peer id at point p (clamped into the box): the leaf holding p
// is split in half along its next dimension, id takes the half containing
// p and the old holder keeps the other. When the old holder's own point
// (where it joined or last moved) lies in id's half too, that half is
// split again, the old holder keeping each piece without p, until the two
// points part, for at most partSplits(d) halvings more: so a holder keeps
// its point whenever the joiner's lies a quarter of their zone's width
// from it in some dimension (when the points do not part, the leaf is
// split once, as a join without a point to keep is). The first peer takes the whole
// box. id's certificates expire at now plus the map's TTL; the old holder
// keeps its expiry. It returns the changed leaves: id's and the old
// holder's pieces.
func (m *Map) Join(id PeerID, p Point, now time.Time) ([]Leaf, error) {
	if err := m.checkJoin(id, p); err != nil {
		return nil, fmt.Errorf("join %s: %w", id, err)
	}
	if _, ok := m.holders[id]; ok {
		return nil, fmt.Errorf("join %s: %w", id, ErrPeerExists)
	}
	c := m.begin()
	m.join(c, id, Clamp(p), now)
	return c.commit(), nil
}

func (m *Map) checkJoin(id PeerID, p Point) error {
	if id == "" {
		return fmt.Errorf("empty peer ID: %w", ErrUnknownPeer)
	}
	if len(p) != m.dim {
		return fmt.Errorf("%d-dimensional point in a %d-dimensional map: %w", len(p), m.dim, ErrDimension)
	}
	if len(m.holders) > 0 && len(m.leafAt(Clamp(p)).path) >= DepthLimit(m.dim) {
		return ErrTooDeep
	}
	return nil
}

func (m *Map) join(c *change, id PeerID, p Point, now time.Time) {
	h := &holder{id: id, expiry: now.Add(m.ttl), point: p}
	m.addHolder(h)
	if len(m.holders) == 1 {
		c.touch(m.root)
		m.root.holder = h
		h.add(m.root)
		return
	}
	cur := m.leafAt(p)
	c.touch(cur)
	old := cur.holder
	old.drop(cur)
	halvings := 1
	if old.point != nil {
		if _, kept, ok := cur.zone.SplitApart(old.point, p, min(1+partSplits(m.dim), DepthLimit(m.dim)-len(cur.path))); ok {
			halvings = len(kept)
		}
	}
	for n := 1; ; n++ {
		split(cur)
		c.touch(cur.left)
		c.touch(cur.right)
		give, keep := cur.right, cur.left
		if !give.zone.Contains(p) {
			give, keep = cur.left, cur.right
		}
		keep.holder = old
		old.add(keep)
		if n >= halvings {
			give.holder = h
			h.add(give)
			return
		}
		cur = give
	}
}

// partSplits is how many halvings beyond its first a join makes to part
// the joiner's point from the old holder's: two per dimension, which
// parts any two points a quarter of their zone's width apart in some
// dimension (closer peers are alike for placement), and a join adds at
// most 2d+1 leaves whatever point it names.
func partSplits(d int) int { return 2 * d }

// Leave removes peer id, which asked to go, and hands each of its zones to
// its heir (see heir); now is taken so every change reads alike. It
// returns the changed leaves: every zone an heir took, merged where it
// merged.
func (m *Map) Leave(id PeerID, now time.Time) ([]Leaf, error) {
	h, ok := m.holders[id]
	if !ok {
		return nil, fmt.Errorf("leave %s: %w", id, ErrUnknownPeer)
	}
	c := m.begin()
	m.remove(c, []*holder{h})
	return c.commit(), nil
}

// Expire removes every holder whose certificates expired by now (expiry
// not after now) and hands their zones to live heirs, as Leave does. It
// returns the changed leaves; after it no leaf has expired.
func (m *Map) Expire(now time.Time) []Leaf {
	var gone []*holder
	for _, id := range m.ids {
		if h := m.holders[id]; !now.Before(h.expiry) {
			gone = append(gone, h)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	c := m.begin()
	m.remove(c, gone)
	return c.commit()
}

// Move is Leave and Join in one step: id's zones go to their heirs and id
// joins again at p, with its certificates renewed to now plus the TTL. The
// returned leaves are the union of both steps' changes, each once. It
// fails, changing nothing, for an unknown id or when the join would split
// deeper than MaxDepth.
func (m *Map) Move(id PeerID, p Point, now time.Time) ([]Leaf, error) {
	h, ok := m.holders[id]
	if !ok {
		return nil, fmt.Errorf("move %s: %w", id, ErrUnknownPeer)
	}
	// Leaving only merges, so the leaf at p after the leave is no deeper
	// than it is now: checking now keeps a refused move from changing
	// anything.
	if err := m.checkJoin(id, p); err != nil {
		return nil, fmt.Errorf("move %s: %w", id, err)
	}
	c := m.begin()
	m.remove(c, []*holder{h})
	m.join(c, id, Clamp(p), now)
	return c.commit(), nil
}

// Renew moves id's expiry to now plus the TTL (never backwards) and
// returns its leaves, whose epochs stay: the certificates to sign again. A
// holder whose certificates already expired is refused with ErrExpired; it
// must join again.
func (m *Map) Renew(id PeerID, now time.Time) ([]Leaf, error) {
	h, ok := m.holders[id]
	if !ok {
		return nil, fmt.Errorf("renew %s: %w", id, ErrUnknownPeer)
	}
	if !now.Before(h.expiry) {
		return nil, fmt.Errorf("renew %s, expired at %s: %w", id, h.expiry.UTC().Format(time.RFC3339Nano), ErrExpired)
	}
	c := m.begin()
	for _, n := range h.leaves {
		c.touch(n)
	}
	if e := now.Add(m.ttl); e.After(h.expiry) {
		h.expiry = e
	}
	return c.commit(), nil
}

// Extend moves id's expiry to expiry when that is later, never back; no
// leaf and no epoch changes. It is Renew for an authority that records
// renewals apart from the map (manager/zones keeps one small record per
// holder rather than rewriting the whole map) and folds them in before
// the map changes shape or expires holders. Unlike Renew it takes a
// holder whose expiry in the map has passed: the renewal it records was
// granted before then. It fails with ErrUnknownPeer for an id that holds
// no zone.
func (m *Map) Extend(id PeerID, expiry time.Time) error {
	h, ok := m.holders[id]
	if !ok {
		return fmt.Errorf("extend %s: %w", id, ErrUnknownPeer)
	}
	if expiry.After(h.expiry) {
		h.expiry = expiry
	}
	return nil
}

// remove takes the holders gone out of the map and hands their zones to
// heirs among the others, in passes over the zones in path order until
// every zone has one: a zone whose neighbours are all gone waits for one
// of them to be handed over first.
func (m *Map) remove(c *change, gone []*holder) {
	isGone := make(map[*holder]bool, len(gone))
	var pending []*mnode
	for _, h := range gone {
		isGone[h] = true
		m.removeHolder(h)
		pending = append(pending, h.leaves...)
	}
	if len(m.holders) == 0 {
		for _, n := range pending {
			c.touch(n)
		}
		m.root = &mnode{zone: Unit(m.dim)}
		return
	}
	slices.SortFunc(pending, func(a, b *mnode) int {
		switch {
		case a.path < b.path:
			return -1
		case a.path > b.path:
			return 1
		}
		return 0
	})
	for len(pending) > 0 {
		rest := pending[:0]
		for _, z := range pending {
			to := heir(z, isGone)
			if to == nil {
				rest = append(rest, z)
				continue
			}
			m.give(c, z, to)
		}
		if len(rest) == len(pending) {
			panic("can: zones of departed holders have no heir: the map's tree is broken")
		}
		pending = rest
	}
}

// heir is who takes zone z from a departed holder, by paper 002's rule:
// the holder of z's sibling when the sibling is one leaf (the two merge
// back into their parent); otherwise, of the holders of zones abutting z,
// the one with the smallest total volume, ties to the smaller PeerID.
// Holders in gone are passed over; nil means every abutting holder is gone.
func heir(z *mnode, gone map[*holder]bool) *holder {
	if s := z.sibling(); s != nil && s.leaf() && s.holder != nil && !gone[s.holder] {
		return s.holder
	}
	var (
		best    *holder
		bestVol float64
	)
	for _, x := range z.nbrs {
		q := x.holder
		if q == nil || gone[q] || q == best {
			continue
		}
		v := q.volume()
		if best == nil || v < bestVol || (v == bestVol && q.id < best.id) {
			best, bestVol = q, v
		}
	}
	return best
}

// give makes q the holder of leaf z and merges z with its sibling, and so
// on up the tree, while q holds both halves.
func (m *Map) give(c *change, z *mnode, q *holder) {
	c.touch(z)
	if z.holder != nil {
		z.holder.drop(z)
	}
	z.holder = q
	q.add(z)
	for z.parent != nil {
		par := z.parent
		l, r := par.left, par.right
		if !l.leaf() || !r.leaf() || l.holder != q || r.holder != q {
			return
		}
		c.touch(par)
		c.touch(l)
		c.touch(r)
		q.drop(l)
		q.drop(r)
		merge(par)
		par.holder = q
		q.add(par)
		z = par
	}
}

func (m *Map) addHolder(h *holder) {
	m.holders[h.id] = h
	i, _ := slices.BinarySearch(m.ids, h.id)
	m.ids = slices.Insert(m.ids, i, h.id)
}

func (m *Map) removeHolder(h *holder) {
	delete(m.holders, h.id)
	if i, ok := slices.BinarySearch(m.ids, h.id); ok {
		m.ids = slices.Delete(m.ids, i, i+1)
	}
}

// change records the state before an operation of every path it touched,
// so commit can tell which leaves changed holder or shape (a new epoch)
// and which only their expiry (the same epoch). It goes by path, not by
// node: a leaf merged away and split again in one operation, with the
// same holder, has not changed.
type change struct {
	m     *Map
	prev  map[Path]prevLeaf
	order []*mnode
}

// prevLeaf is a node's state before the operation: held is false when it
// was not a held leaf.
type prevLeaf struct {
	held   bool
	holder PeerID
	epoch  uint64
	expiry time.Time
}

func (m *Map) begin() *change {
	return &change{m: m, prev: make(map[Path]prevLeaf)}
}

func (c *change) touch(n *mnode) {
	c.order = append(c.order, n)
	if _, ok := c.prev[n.path]; ok {
		return
	}
	var st prevLeaf
	if n.leaf() && n.holder != nil {
		st = prevLeaf{held: true, holder: n.holder.id, epoch: n.epoch, expiry: n.holder.expiry}
	}
	c.prev[n.path] = st
}

// commit gives the touched leaves that changed holder or shape the next
// epoch and returns every touched leaf that changed, in path order.
func (c *change) commit() []Leaf {
	var out []Leaf
	bumped := false
	done := make(map[*mnode]bool, len(c.order))
	for _, n := range c.order {
		if done[n] || !n.leaf() || n.holder == nil || !c.m.attached(n) {
			continue
		}
		done[n] = true
		st := c.prev[n.path]
		if st.held && st.holder == n.holder.id {
			n.epoch = st.epoch // the node may be new, the leaf is not
			if st.expiry.Equal(n.holder.expiry) {
				continue
			}
		} else {
			if !bumped {
				c.m.epoch++
				bumped = true
			}
			n.epoch = c.m.epoch
		}
		out = append(out, n.cert())
	}
	slices.SortFunc(out, func(a, b Leaf) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	return out
}

// attached reports whether n is still in the tree (merges detach the
// children they fold).
func (m *Map) attached(n *mnode) bool {
	x := n
	for ; x.parent != nil; x = x.parent {
		if x.parent.left != x && x.parent.right != x {
			return false
		}
	}
	return x == m.root
}
