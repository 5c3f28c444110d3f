package can

import (
	"fmt"
	"strings"
)

// MaxDepth bounds a Path's length: the splits float64 keeps exact in every
// dimension up to DefaultDim and beyond (a width of 2^-1000 is still a
// normal number). A join that would split deeper is refused.
const MaxDepth = 1000

// Path names a zone of the split tree by the halves taken from the unit
// box down: '0' is the low half and '1' the high half of each split, the
// split of depth k being along dimension k mod d (see Zone.Split). The
// empty path is the unit box. Paths compare as strings; sorted, a tiling's
// paths are in depth-first order.
type Path string

// Validate checks that p is made of '0' and '1' and is at most MaxDepth
// long.
func (p Path) Validate() error {
	if len(p) > MaxDepth {
		return fmt.Errorf("path of depth %d, deeper than %d", len(p), MaxDepth)
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '0' && p[i] != '1' {
			return fmt.Errorf("path %.40q: byte %d is %q, not '0' or '1'", string(p), i, p[i])
		}
	}
	return nil
}

// Zone returns the box p names in the d-dimensional space. p must be valid.
func (p Path) Zone(d int) Zone {
	z := Unit(d)
	for i := 0; i < len(p); i++ {
		lo, hi := z.Split()
		if p[i] == '0' {
			z = lo
		} else {
			z = hi
		}
	}
	return z
}

// Covers reports whether q is p or lies under p (p is an ancestor of q).
func (p Path) Covers(q Path) bool { return strings.HasPrefix(string(q), string(p)) }

// Overlaps reports whether the zones p and q name share points: one is an
// ancestor of the other, or they are the same.
func (p Path) Overlaps(q Path) bool { return p.Covers(q) || q.Covers(p) }

// Sibling returns the other half of p's parent; ok is false for the root.
func (p Path) Sibling() (Path, bool) {
	if p == "" {
		return "", false
	}
	last := byte('1')
	if p[len(p)-1] == '1' {
		last = '0'
	}
	return p[:len(p)-1] + Path(last), true
}
