package fountain

import (
	"math"
	"testing"
)

// FuzzSolve plans small models built from arbitrary bytes and checks that
// every constraint holds and the plan is never worse than the uniform one.
func FuzzSolve(f *testing.F) {
	f.Add([]byte{3, 4, 200, 10, 50, 128, 255, 1, 0, 90, 30, 60, 7, 8, 9})
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte("a crawl cycle of several periods and buckets"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 8 {
			return
		}
		next := func() float64 {
			if len(data) == 0 {
				return 0
			}
			v := float64(data[0]) / 255
			data = data[1:]
			return v
		}
		B, T := int(data[0]%5)+1, int(data[1]%5)+1
		data = data[2:]
		m := Model{
			Periods:     T,
			Capacity:    []float64{next() * 500},
			NewCost:     0.5 + next()*2,
			NewFindsNew: next(),
			NewArrivals: next() * 50,
			Uncrawled:   next() * 100,
		}
		for range B {
			pages := next() * 200
			m.Buckets = append(m.Buckets, Bucket{
				Pages:    pages,
				Obsolete: pages * next(),
				Change:   next(),
				Cost:     0.5 + next()*2,
				FindsNew: next() * 0.5,
				NewShare: 1 / float64(B),
			})
		}
		w := make(Weights, T)
		for k := range w {
			w[k] = next()
		}
		p, err := Solve(m, w, Options{Iterations: 60})
		if err != nil {
			t.Fatal(err)
		}
		checkFeasible(t, m, p)
		u, err := Uniform(m, w)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(p.Objective) || p.Objective > u.Objective*(1+1e-12)+1e-12 {
			t.Fatalf("objective %g, uniform %g", p.Objective, u.Objective)
		}
	})
}
