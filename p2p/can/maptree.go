package can

import "slices"

// leafAt walks down to the leaf containing p, which must be clamped.
func (m *Map) leafAt(p Point) *mnode {
	n := m.root
	for !n.leaf() {
		k := n.zone.SplitDim()
		if p[k] >= n.right.zone.Lo[k] {
			n = n.right
		} else {
			n = n.left
		}
	}
	return n
}

// split turns leaf n into an inner node with two unheld leaf children and
// rewires the neighbour lists: each child's neighbours are its sibling and
// those of n's neighbours that abut it.
func split(n *mnode) {
	lo, hi := n.zone.Split()
	l := &mnode{path: n.path + "0", zone: lo, parent: n}
	r := &mnode{path: n.path + "1", zone: hi, parent: n}
	l.nbrs = append(l.nbrs, r)
	r.nbrs = append(r.nbrs, l)
	for _, x := range n.nbrs {
		x.nbrs = removeMNode(x.nbrs, n)
		if Abuts(x.zone, lo) {
			l.nbrs = append(l.nbrs, x)
			x.nbrs = append(x.nbrs, l)
		}
		if Abuts(x.zone, hi) {
			r.nbrs = append(r.nbrs, x)
			x.nbrs = append(x.nbrs, r)
		}
	}
	n.left, n.right, n.holder, n.nbrs = l, r, nil, nil
}

// merge turns the inner node n, whose children are leaves, back into an
// unheld leaf.
func merge(n *mnode) {
	l, r := n.left, n.right
	for _, c := range [2]*mnode{l, r} {
		for _, x := range c.nbrs {
			if x == l || x == r {
				continue
			}
			x.nbrs = removeMNode(x.nbrs, c)
			if !slices.Contains(x.nbrs, n) {
				x.nbrs = append(x.nbrs, n)
				n.nbrs = append(n.nbrs, x)
			}
		}
	}
	n.left, n.right = nil, nil
}

func removeMNode(s []*mnode, n *mnode) []*mnode {
	for i, x := range s {
		if x == n {
			s[i] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	return s
}
