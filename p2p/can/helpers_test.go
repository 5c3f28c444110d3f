package can

import (
	"math/rand/v2"
)

func randPoint(r *rand.Rand, d int) Point {
	p := make(Point, d)
	for i := range p {
		p[i] = r.Float64()
	}
	return p
}
