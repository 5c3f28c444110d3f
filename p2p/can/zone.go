package can

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// DefaultDim is the dimension of the CAN space unless configured otherwise.
const DefaultDim = 3

// Point is a position in the unit box [0,1]^d.
type Point []float64

// Clamp returns p with every coordinate forced into [0,1], as design.md §4
// clamps coordinates that fall outside the trained CAN-space bounds. NaN
// becomes 0.
func Clamp(p Point) Point {
	q := make(Point, len(p))
	for i, v := range p {
		switch {
		case !(v > 0): // also NaN
			q[i] = 0
		case v > 1:
			q[i] = 1
		default:
			q[i] = v
		}
	}
	return q
}

// Zone is the half-open box [Lo, Hi) of the unit box owned by one peer; an
// upper bound of exactly 1 is closed (see the package doc). Zones are values:
// Lo and Hi must not be modified once a zone is built.
type Zone struct {
	Lo, Hi Point
}

// Unit returns the whole space [0,1]^d, the zone of the first peer.
func Unit(d int) Zone {
	z := Zone{Lo: make(Point, d), Hi: make(Point, d)}
	for i := range z.Hi {
		z.Hi[i] = 1
	}
	return z
}

// Dim returns the zone's dimension.
func (z Zone) Dim() int { return len(z.Lo) }

// Contains reports whether p lies in z.
func (z Zone) Contains(p Point) bool {
	if len(p) != len(z.Lo) {
		return false
	}
	for i, v := range p {
		if v < z.Lo[i] || v > z.Hi[i] || (v == z.Hi[i] && z.Hi[i] != 1) {
			return false
		}
	}
	return true
}

// Volume returns the zone's d-dimensional volume.
func (z Zone) Volume() float64 {
	v := 1.0
	for i := range z.Lo {
		v *= z.Hi[i] - z.Lo[i]
	}
	return v
}

// Centre returns the zone's centre point.
func (z Zone) Centre() Point {
	c := make(Point, len(z.Lo))
	for i := range c {
		c[i] = (z.Lo[i] + z.Hi[i]) / 2
	}
	return c
}

// Diagonal returns the length of the zone's diagonal.
func (z Zone) Diagonal() float64 {
	s := 0.0
	for i := range z.Lo {
		w := z.Hi[i] - z.Lo[i]
		s += w * w
	}
	return math.Sqrt(s)
}

// Drifted reports whether p lies further than the zone's diagonal from its
// centre: a peer whose coordinate drifted that far leaves and rejoins at its
// new point (design.md §4).
func (z Zone) Drifted(p Point) bool {
	c := z.Centre()
	return dist2(c, p) > z.Diagonal()*z.Diagonal()
}

// Dist2 returns the squared Euclidean distance from p to the closest point
// of z (0 when z contains p). The half-open upper faces do not matter for a
// distance.
func (z Zone) Dist2(p Point) float64 {
	s := 0.0
	for i, v := range p {
		var d float64
		if v < z.Lo[i] {
			d = z.Lo[i] - v
		} else if v > z.Hi[i] {
			d = v - z.Hi[i]
		}
		s += d * d
	}
	return s
}

// Depth returns how many halvings of the unit box made z.
func (z Zone) Depth() int {
	n := 0
	for i := range z.Lo {
		_, e := math.Frexp(z.Hi[i] - z.Lo[i]) // width = 0.5 * 2^e
		n += 1 - e
	}
	return n
}

// SplitDim returns the dimension along which z splits next: its depth mod d.
func (z Zone) SplitDim() int { return z.Depth() % len(z.Lo) }

// Split halves z along SplitDim and returns the low and the high half.
func (z Zone) Split() (lo, hi Zone) {
	k := z.SplitDim()
	mid := (z.Lo[k] + z.Hi[k]) / 2
	lo = Zone{Lo: z.Lo, Hi: withCoord(z.Hi, k, mid)}
	hi = Zone{Lo: withCoord(z.Lo, k, mid), Hi: z.Hi}
	return lo, hi
}

// Parent returns the zone z was split from; ok is false for the unit box.
func (z Zone) Parent() (parent Zone, ok bool) {
	depth := z.Depth()
	if depth == 0 {
		return Zone{}, false
	}
	k := (depth - 1) % len(z.Lo)
	w := z.Hi[k] - z.Lo[k]
	if isLowHalf(z.Lo[k], w) {
		return Zone{Lo: z.Lo, Hi: withCoord(z.Hi, k, z.Hi[k]+w)}, true
	}
	return Zone{Lo: withCoord(z.Lo, k, z.Lo[k]-w), Hi: z.Hi}, true
}

// Sibling returns the other half of z's parent; ok is false for the unit
// box. Two zones held by one peer merge when one is the other's sibling.
func (z Zone) Sibling() (sibling Zone, ok bool) {
	depth := z.Depth()
	if depth == 0 {
		return Zone{}, false
	}
	k := (depth - 1) % len(z.Lo)
	w := z.Hi[k] - z.Lo[k]
	if isLowHalf(z.Lo[k], w) {
		return Zone{Lo: withCoord(z.Lo, k, z.Hi[k]), Hi: withCoord(z.Hi, k, z.Hi[k]+w)}, true
	}
	return Zone{Lo: withCoord(z.Lo, k, z.Lo[k]-w), Hi: withCoord(z.Hi, k, z.Lo[k])}, true
}

// Equal reports whether z and o are the same box.
func (z Zone) Equal(o Zone) bool {
	if len(z.Lo) != len(o.Lo) {
		return false
	}
	for i := range z.Lo {
		if z.Lo[i] != o.Lo[i] || z.Hi[i] != o.Hi[i] {
			return false
		}
	}
	return true
}

// Validate checks that z is a zone a CAN of dimension d can hold: the right
// dimension, inside the unit box, and made by halving in the fixed order. A
// networked peer calls it on every zone a neighbour announces.
func (z Zone) Validate(d int) error {
	if len(z.Lo) != d || len(z.Hi) != d {
		return fmt.Errorf("zone has %d/%d coordinates, want %d: %w", len(z.Lo), len(z.Hi), d, ErrDimension)
	}
	// Widths: per dimension a power of two 2^-m_i, with the m_i
	// round-robin: m_0 >= m_1 >= ... >= m_{d-1} >= m_0 - 1.
	m := make([]int, d)
	for i := range z.Lo {
		lo, hi := z.Lo[i], z.Hi[i]
		if !(lo >= 0 && hi <= 1 && lo < hi) {
			return fmt.Errorf("zone dimension %d: [%v, %v) is not inside [0,1]", i, lo, hi)
		}
		frac, e := math.Frexp(hi - lo)
		if frac != 0.5 || e < -1021 {
			return fmt.Errorf("zone dimension %d: width %v is not a power of two", i, hi-lo)
		}
		m[i] = 1 - e
		if q := lo / (hi - lo); q != math.Trunc(q) {
			return fmt.Errorf("zone dimension %d: %v is not aligned to its width", i, lo)
		}
	}
	for i := 1; i < d; i++ {
		if m[i] > m[i-1] || m[i] < m[0]-1 {
			return fmt.Errorf("zone widths %v do not follow the split order", m)
		}
	}
	return nil
}

// String formats z for logs and test failures.
func (z Zone) String() string {
	return fmt.Sprintf("[%v, %v)", []float64(z.Lo), []float64(z.Hi))
}

// Abuts reports whether zones a and b are CAN neighbours: they touch along
// one dimension and their extents overlap (with positive length) in all the
// others. The space is not a torus, so the faces 0 and 1 do not touch.
func Abuts(a, b Zone) bool {
	if len(a.Lo) != len(b.Lo) {
		return false
	}
	touch := 0
	for i := range a.Lo {
		switch {
		case a.Hi[i] == b.Lo[i] || b.Hi[i] == a.Lo[i]:
			touch++
		case a.Lo[i] < b.Hi[i] && b.Lo[i] < a.Hi[i]:
		default:
			return false
		}
	}
	return touch == 1
}

// AbutsAny reports whether some zone of a abuts some zone of b: whether
// the holders of a and b are neighbours.
func AbutsAny(a, b []Zone) bool {
	for _, x := range a {
		for _, y := range b {
			if Abuts(x, y) {
				return true
			}
		}
	}
	return false
}

// Holds reports whether one of zones contains p.
func Holds(zones []Zone, p Point) bool {
	return slices.ContainsFunc(zones, func(z Zone) bool { return z.Contains(p) })
}

// Volume returns the volume zones cover together (they do not overlap).
func Volume(zones []Zone) float64 {
	v := 0.0
	for _, z := range zones {
		v += z.Volume()
	}
	return v
}

// Overlaps reports whether a and b share interior points.
func Overlaps(a, b Zone) bool {
	for i := range a.Lo {
		if !(a.Lo[i] < b.Hi[i] && b.Lo[i] < a.Hi[i]) {
			return false
		}
	}
	return true
}

func isLowHalf(lo, w float64) bool {
	q := lo / w // exact: both dyadic
	return math.Mod(q, 2) == 0
}

func withCoord(p Point, k int, v float64) Point {
	q := make(Point, len(p))
	copy(q, p)
	q[k] = v
	return q
}

func dist2(a, b Point) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// SplitApart splits z, which holds both keep and give, until they lie in
// different pieces, halving at most depth times: given is the piece with
// give, kept the piece with keep and the pieces split off along the way
// (which hold neither). ok is false when depth halvings do not part them;
// z is then to be split once, as a join without a point to keep does.
// Every piece is one of z's dyadic descendants, so they tile z.
func (z Zone) SplitApart(keep, give Point, depth int) (given Zone, kept []Zone, ok bool) {
	cur := z
	for range depth {
		lo, hi := cur.Split()
		switch {
		case lo.Contains(keep) && hi.Contains(give):
			return hi, append(kept, lo), true
		case hi.Contains(keep) && lo.Contains(give):
			return lo, append(kept, hi), true
		case lo.Contains(keep):
			kept, cur = append(kept, hi), lo
		default:
			kept, cur = append(kept, lo), hi
		}
	}
	return Zone{}, nil, false
}

// HashPoint maps a host name to a point of [0,1)^dim by SHA-256: where a
// host's tasks go before anything is measured of it.
func HashPoint(host string, dim int) Point {
	p := make(Point, dim)
	for i := range p {
		sum := sha256.Sum256(fmt.Appendf(nil, "%d/%s", i, host))
		p[i] = float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
	}
	return p
}
