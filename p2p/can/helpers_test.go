package can

import (
	"math/rand/v2"
	"slices"
)

func randPoint(r *rand.Rand, d int) Point {
	p := make(Point, d)
	for i := range p {
		p[i] = r.Float64()
	}
	return p
}

// clusteredPoint draws points the way clamped network coordinates fall:
// often on a face or corner of the box, often repeated.
func clusteredPoint(r *rand.Rand, d int, seen []Point) Point {
	switch r.IntN(4) {
	case 0:
		if len(seen) > 0 {
			return slices.Clone(seen[r.IntN(len(seen))])
		}
	case 1:
		p := randPoint(r, d)
		p[r.IntN(d)] = float64(r.IntN(2))
		return p
	}
	return randPoint(r, d)
}
