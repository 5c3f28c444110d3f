package can

import (
	"fmt"
	"slices"
)

// Leave removes peer id gracefully. Each of its zones goes to the owner of
// the zone's sibling when that sibling is a single zone (the two merge back
// into their parent), else to the neighbour with the smallest total volume,
// which holds it as an extra zone. The returned handovers say where each
// zone (and the tasks in it) went.
func (o *Overlay) Leave(id PeerID) ([]Handover, error) {
	p, ok := o.peers[id]
	if !ok {
		return nil, fmt.Errorf("leave %s: %w", id, ErrUnknownPeer)
	}
	return o.remove(p, true), nil
}

// Crash removes peer id without notice: its neighbours notice the missed
// heartbeats and, as in CAN's takeover, the neighbour with the smallest
// total volume takes each zone over. The returned handovers say who took
// what; the crashed peer's tasks are lost, not moved.
func (o *Overlay) Crash(id PeerID) ([]Handover, error) {
	p, ok := o.peers[id]
	if !ok {
		return nil, fmt.Errorf("crash %s: %w", id, ErrUnknownPeer)
	}
	return o.remove(p, false), nil
}

func (o *Overlay) remove(p *peer, graceful bool) []Handover {
	o.removePeer(p)
	if len(o.peers) == 0 {
		o.root = &node{zone: Unit(o.dim)}
		return nil
	}
	var out []Handover
	// Hand over zones with an outside neighbour first; the rest get one as
	// their neighbours are handed over.
	pending := slices.Clone(p.zones)
	p.zones, p.cache = nil, nil
	for len(pending) > 0 {
		progress := false
		for i := 0; i < len(pending); i++ {
			z := pending[i]
			to := o.heir(z, p, graceful)
			if to == nil {
				continue
			}
			zone := z.zone
			o.give(z, to)
			out = append(out, Handover{Zone: zone, From: p.id, To: to.id})
			pending = slices.Delete(pending, i, i+1)
			i--
			progress = true
		}
		if !progress {
			panic("can: zones of a leaving peer have no outside neighbour")
		}
	}
	return out
}

// heir picks who takes zone z from the departing peer p.
func (o *Overlay) heir(z *node, p *peer, graceful bool) *peer {
	if graceful && z.parent != nil {
		s := z.parent.left
		if s == z {
			s = z.parent.right
		}
		if s.leaf() && s.owner != p {
			return s.owner
		}
	}
	var best *peer
	bestVol := 0.0
	for _, m := range z.nbrs {
		q := m.owner
		if q == p {
			continue
		}
		v := q.volume()
		if best == nil || v < bestVol || (v == bestVol && q.id < best.id) {
			best, bestVol = q, v
		}
	}
	return best
}

// give makes q the owner of leaf z and merges z with its sibling, and so on
// up the tree, while q holds both halves.
func (o *Overlay) give(z *node, q *peer) {
	if z.owner != nil && z.owner != q {
		z.owner.dropZone(z)
	}
	z.owner = q
	if !slices.Contains(q.zones, z) {
		q.addZone(z)
	}
	for z.parent != nil {
		par := z.parent
		l, r := par.left, par.right
		if !l.leaf() || !r.leaf() || l.owner != q || r.owner != q {
			return
		}
		q.dropZone(l)
		q.dropZone(r)
		o.merge(par, q)
		q.addZone(par)
		z = par
	}
}

// Defragment runs CAN's background zone reassignment once over every peer
// holding more than one zone: for each extra zone z, if z's sibling is one
// zone its owner takes z and merges; otherwise two sibling zones a, b are
// found inside the sibling's subtree, a's owner takes b (they merge) and b's
// owner, now free, takes z. A peer keeps the zone holding its join point
// (or its largest). The returned handovers say which zones moved.
func (o *Overlay) Defragment() []Handover {
	var out []Handover
	for _, id := range slices.Clone(o.ids) {
		p, ok := o.peers[id]
		if !ok || len(p.zones) < 2 {
			continue
		}
		keep := p.zones[0]
		for _, z := range p.zones {
			if z.zone.Contains(p.point) {
				keep = z
				break
			}
			if z.zone.Volume() > keep.zone.Volume() {
				keep = z
			}
		}
		for _, z := range slices.Clone(p.zones) {
			if z == keep || z.owner != p || !z.leaf() {
				continue // merged away meanwhile
			}
			out = o.shed(z, p, out)
		}
	}
	return out
}

func (o *Overlay) shed(z *node, p *peer, out []Handover) []Handover {
	if z.parent == nil {
		return out
	}
	s := z.parent.left
	if s == z {
		s = z.parent.right
	}
	if s.leaf() {
		if s.owner == p {
			return out
		}
		q := s.owner
		out = append(out, Handover{Zone: z.zone, From: p.id, To: q.id})
		o.give(z, q)
		return out
	}
	// Descend to a deepest pair of sibling leaves in s's subtree.
	n := s
	for !n.left.leaf() || !n.right.leaf() {
		if !n.left.leaf() {
			n = n.left
		} else {
			n = n.right
		}
	}
	a, b := n.left, n.right
	for _, pair := range [2][2]*node{{a, b}, {b, a}} {
		keepN, freeN := pair[0], pair[1]
		qa, qb := keepN.owner, freeN.owner
		if qa == p || qb == p || qa == qb || len(qb.zones) != 1 {
			continue
		}
		out = append(out, Handover{Zone: freeN.zone, From: qb.id, To: qa.id})
		o.give(freeN, qa)
		out = append(out, Handover{Zone: z.zone, From: p.id, To: qb.id})
		o.give(z, qb)
		return out
	}
	return out
}
