package coord

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

func TestNelderMeadKnownMinima(t *testing.T) {
	tests := []struct {
		name string
		f    func([]float64) float64
		x0   []float64
		want []float64
	}{
		{"quadratic bowl", func(x []float64) float64 {
			return (x[0]-3)*(x[0]-3) + 2*(x[1]+1)*(x[1]+1) + (x[2]-0.5)*(x[2]-0.5)
		}, []float64{0, 0, 0}, []float64{3, -1, 0.5}},
		{"rosenbrock", func(x []float64) float64 {
			return 100*(x[1]-x[0]*x[0])*(x[1]-x[0]*x[0]) + (1-x[0])*(1-x[0])
		}, []float64{-1.2, 1}, []float64{1, 1}},
		{"NaN region is avoided", func(x []float64) float64 {
			if x[0] < -0.5 {
				return math.NaN()
			}
			return (x[0] - 2) * (x[0] - 2)
		}, []float64{-0.4}, []float64{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, fx := nelderMead(tc.f, tc.x0, 0.5, 5000, 1e-14, 1e-8)
			for i := range tc.want {
				if math.Abs(x[i]-tc.want[i]) > 1e-3 {
					t.Fatalf("minimum at %v (f=%g), want %v", x, fx, tc.want)
				}
			}
		})
	}
}

// TestNelderMeadMatchesGonum solves random host-placement problems with
// this package's Nelder–Mead and with gonum's, from the same start, and
// requires ours to fit as well in nearly every case.
func TestNelderMeadMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	worse := 0
	const trials = 40
	for range trials {
		k := 4 + r.IntN(5)
		host := []float64{r.Float64()*300 - 150, r.Float64()*300 - 150, r.Float64()*300 - 150}
		peers := make([][]float64, k)
		rtts := make([]float64, k)
		for j := range peers {
			peers[j] = []float64{r.Float64()*300 - 150, r.Float64()*300 - 150, r.Float64()*300 - 150}
			rtts[j] = euclid(host, peers[j]) * (0.8 + 0.4*r.Float64())
		}
		f := func(x []float64) float64 {
			s := 0.0
			for j, p := range peers {
				e := (euclid(x, p) - rtts[j]) / rtts[j]
				s += e * e
			}
			return s
		}
		x0 := peers[0]
		_, ours := nelderMead(f, x0, 10, 2000, 1e-12, 1e-6)
		res, err := optimize.Minimize(optimize.Problem{Func: f}, x0,
			&optimize.Settings{FuncEvaluations: 2000}, &optimize.NelderMead{SimplexSize: 10})
		if err != nil && res == nil {
			t.Fatal(err)
		}
		if ours > res.F+1e-6 {
			worse++
			t.Logf("ours %g, gonum %g", ours, res.F)
		}
	}
	if worse > trials/10 {
		t.Errorf("worse than gonum in %d of %d trials", worse, trials)
	}
}
