package can

import (
	"fmt"
	"strings"
)

// MaxDepth bounds a Path's length in any dimension; a map splits no
// deeper than DepthLimit, which is less in fewer than 20 dimensions.
const MaxDepth = 1000

// maxSplitsPerDim is how often a map halves one dimension. Bounds that
// are multiples of 2^-52 are exact float64 numbers everywhere in [0, 1],
// so every zone down to that width is exact. One more halving is not:
// the spacing of float64 just below 1 is 2^-53, so the midpoint of a
// zone of width 2^-53 there rounds onto a bound, and the half left has
// width 0, abuts nothing and can have no heir.
const maxSplitsPerDim = 52

// DepthLimit is the deepest a d-dimensional map splits: splits take the
// dimensions in turn, so at this depth each was halved at most 52 times.
// A join that would split deeper is refused (ErrTooDeep).
func DepthLimit(d int) int { return min(MaxDepth, maxSplitsPerDim*d) }

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
