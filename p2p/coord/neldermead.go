package coord

import (
	"math"
	"slices"
)

// nelderMead minimises f from x0 with the standard Nelder–Mead simplex
// method (reflection 1, expansion 2, contraction ½, shrink ½; the same
// coefficients as gonum's optimize.NelderMead, which the tests compare it
// against). The initial simplex is x0 plus step along each axis. It stops
// after maxEvals evaluations, or when the simplex's values differ by less
// than ftol (absolute) and its vertices lie within xtol of the best one.
//
// It exists because gonum's optimize.Minimize runs every method in a
// goroutine and exchanges each function evaluation over channels: a host
// solve took about 4 ms that way (30× more under -race), against tens of
// microseconds here, and the simulator solves thousands of hosts.
func nelderMead(f func([]float64) float64, x0 []float64, step float64, maxEvals int, ftol, xtol float64) (x []float64, fx float64) {
	n := len(x0)
	verts := make([][]float64, n+1)
	vals := make([]float64, n+1)
	for i := range verts {
		verts[i] = slices.Clone(x0)
		if i > 0 {
			verts[i][i-1] += step
		}
		vals[i] = f(verts[i])
	}
	evals := n + 1
	centroid := make([]float64, n)
	xr := make([]float64, n)
	xe := make([]float64, n)
	xc := make([]float64, n)
	at := func(dst []float64, t float64) { // dst = centroid + t·(centroid − worst)
		w := verts[n]
		for j := range dst {
			dst[j] = centroid[j] + t*(centroid[j]-w[j])
		}
	}
	for evals < maxEvals {
		// Order the vertices by value, best first (insertion sort: the
		// simplex is tiny and mostly sorted already).
		for i := 1; i <= n; i++ {
			for k := i; k > 0 && cmpFloat(vals[k], vals[k-1]) < 0; k-- {
				vals[k], vals[k-1] = vals[k-1], vals[k]
				verts[k], verts[k-1] = verts[k-1], verts[k]
			}
		}
		if converged(verts, vals, ftol, xtol) {
			break
		}
		for j := range centroid {
			s := 0.0
			for i := range n {
				s += verts[i][j]
			}
			centroid[j] = s / float64(n)
		}
		at(xr, 1)
		fr := f(xr)
		evals++
		switch {
		case fr < vals[0]:
			at(xe, 2)
			fe := f(xe)
			evals++
			if fe < fr {
				copy(verts[n], xe)
				vals[n] = fe
			} else {
				copy(verts[n], xr)
				vals[n] = fr
			}
		case fr < vals[n-1]:
			copy(verts[n], xr)
			vals[n] = fr
		default:
			// Contract: outside when the reflection beat the worst,
			// inside otherwise.
			t := -0.5
			if fr < vals[n] {
				t = 0.5
			}
			at(xc, t)
			fc := f(xc)
			evals++
			if fc < math.Min(fr, vals[n]) {
				copy(verts[n], xc)
				vals[n] = fc
				continue
			}
			// Shrink towards the best vertex.
			for i := 1; i <= n; i++ {
				for j := range verts[i] {
					verts[i][j] = verts[0][j] + 0.5*(verts[i][j]-verts[0][j])
				}
				vals[i] = f(verts[i])
				evals++
			}
		}
	}
	best := 0
	for i := range vals {
		if vals[i] < vals[best] {
			best = i
		}
	}
	return verts[best], vals[best]
}

func converged(verts [][]float64, vals []float64, ftol, xtol float64) bool {
	if !(vals[len(vals)-1]-vals[0] <= ftol) {
		return false
	}
	for _, v := range verts[1:] {
		for j := range v {
			if math.Abs(v[j]-verts[0][j]) > xtol {
				return false
			}
		}
	}
	return true
}

// cmpFloat orders NaN last, so a vertex with an undefined value is the
// first to be replaced.
func cmpFloat(a, b float64) int {
	switch {
	case a < b, !math.IsNaN(a) && math.IsNaN(b):
		return -1
	case a > b, math.IsNaN(a) && !math.IsNaN(b):
		return 1
	}
	return 0
}
