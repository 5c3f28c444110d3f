package coord

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestDistanceTo(t *testing.T) {
	tests := []struct {
		name string
		a, b Coord
		want float64
	}{
		{"euclidean", Coord{Vec: []float64{0, 0, 0}}, Coord{Vec: []float64{3, 4, 0}}, 5},
		{"heights add", Coord{Vec: []float64{0, 0, 0}, Height: 2}, Coord{Vec: []float64{3, 4, 0}, Height: 1}, 8},
		{"positive adjustment adds", Coord{Vec: []float64{0, 0, 0}, Adjustment: 1}, Coord{Vec: []float64{3, 4, 0}, Adjustment: 2}, 8},
		{"adjustment that would go negative is ignored", Coord{Vec: []float64{0, 0, 0}, Adjustment: -10}, Coord{Vec: []float64{3, 4, 0}}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.DistanceTo(tc.b); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("DistanceTo = %v, want %v", got, tc.want)
			}
			if got := tc.b.DistanceTo(tc.a); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("DistanceTo not symmetric: %v", got)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		c    Coord
		ok   bool
	}{
		{"fine", Coord{Vec: []float64{1, 2, 3}, Height: 0.1}, true},
		{"wrong dimension", Coord{Vec: []float64{1, 2}}, false},
		{"NaN component", Coord{Vec: []float64{1, math.NaN(), 3}}, false},
		{"infinite height", Coord{Vec: []float64{1, 2, 3}, Height: math.Inf(1)}, false},
		{"negative height", Coord{Vec: []float64{1, 2, 3}, Height: -1}, false},
		{"NaN error", Coord{Vec: []float64{1, 2, 3}, Error: math.NaN()}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.c.Validate(3); (err == nil) != tc.ok {
				t.Errorf("Validate = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestTrainBoundsAndMap(t *testing.T) {
	sample := make([]Coord, 100)
	for i := range sample {
		sample[i] = Coord{Vec: []float64{float64(i), float64(-2 * i), 7}}
	}
	b, err := TrainBounds(sample, 5)
	if err != nil {
		t.Fatal(err)
	}
	if b.Lo[0] != 5 || b.Hi[0] != 94 || b.Lo[1] != -188 || b.Hi[1] != -10 {
		t.Fatalf("bounds %+v, want x [5,94], y [-188,-10]", b)
	}
	tests := []struct {
		name string
		c    Coord
		want []float64
	}{
		{"inside", Coord{Vec: []float64{49.5, -99, 7}}, []float64{0.5, 0.5, 0.5}},
		{"below is clamped to 0", Coord{Vec: []float64{-100, -99, 7}}, []float64{0, 0.5, 0.5}},
		{"above is clamped to 1", Coord{Vec: []float64{1e9, 0, 7}}, []float64{1, 1, 0.5}},
		{"on the bounds", Coord{Vec: []float64{5, -188, 7}}, []float64{0, 0, 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := b.Map(tc.c)
			for i := range tc.want {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Fatalf("Map = %v, want %v", got, tc.want)
				}
			}
		})
	}
	if _, err := TrainBounds(nil, 5); err == nil {
		t.Error("training on no sample succeeded")
	}
	if _, err := TrainBounds(sample, 50); err == nil {
		t.Error("trimming everything succeeded")
	}
	if b, _ := TrainBounds(sample, -1); b.Lo[0] != 5 {
		t.Errorf("default trim gave lo %v, want 5", b.Lo[0])
	}
}

func TestSolveSynthetic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name   string
		k      int
		height bool
	}{
		{"k = d+1", 4, false},
		{"k = 8", 8, false},
		{"peer heights subtracted", 6, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			failures := 0
			for trial := range 20 {
				host := []float64{r.Float64()*200 - 100, r.Float64()*200 - 100, r.Float64()*200 - 100}
				probes := make([]Probe, tc.k)
				for j := range probes {
					c := Coord{Vec: []float64{r.Float64()*200 - 100, r.Float64()*200 - 100, r.Float64()*200 - 100}}
					if tc.height {
						c.Height = r.Float64() * 20
					}
					probes[j] = Probe{Peer: c, RTT: c.DistanceTo(Coord{Vec: host})}
				}
				sol, err := Solve(probes, SolveConfig{}, r)
				if err != nil {
					t.Fatal(err)
				}
				if sol.Residual > 0.02 {
					t.Logf("trial %d: residual %v", trial, sol.Residual)
				}
				// With exact RTTs every probe's RTT must be reproduced.
				for _, p := range probes {
					est := p.Peer.DistanceTo(sol.Coord)
					if math.Abs(est-p.RTT)/p.RTT > 0.05 {
						failures++
						break
					}
				}
			}
			// k = d+1 exact distances can leave a mirror ambiguity but still
			// fit; a bad local minimum should be rare with restarts.
			if failures > 1 {
				t.Errorf("%d of 20 hosts not fitted within 5 %%", failures)
			}
		})
	}
}

func TestSolveErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	p := func(x, rtt float64) Probe { return Probe{Peer: Coord{Vec: []float64{x, 0, 0}}, RTT: rtt} }
	tests := []struct {
		name   string
		probes []Probe
	}{
		{"none", nil},
		{"too few", []Probe{p(0, 1), p(1, 1), p(2, 1)}},
		{"unusable RTTs dropped", []Probe{p(0, 1), p(1, 0), p(2, -1), p(3, math.Inf(1)), p(4, math.NaN())}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Solve(tc.probes, SolveConfig{}, r); !errors.Is(err, ErrTooFewProbes) {
				t.Errorf("Solve error %v, want ErrTooFewProbes", err)
			}
		})
	}
}

func TestClientObserve(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, err := NewClient(3, r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewClient(3, r)
	for range 200 {
		if _, err := a.Observe("b", b.Coord(), 50e6); err != nil { // 50 ms
			t.Fatal(err)
		}
		if _, err := b.Observe("a", a.Coord(), 50e6); err != nil {
			t.Fatal(err)
		}
	}
	if d := a.Coord().DistanceTo(b.Coord()); math.Abs(d-50) > 5 {
		t.Errorf("two clients 50 ms apart estimate %v ms", d)
	}
	if _, err := a.Observe("b", Coord{Vec: []float64{1}}, 50e6); err == nil {
		t.Error("observing a coordinate of the wrong dimension succeeded")
	}
	if _, err := a.Observe("b", b.Coord(), 0); err == nil {
		t.Error("observing a zero RTT succeeded")
	}
	if _, err := a.Observe("b", b.Coord(), 11e9); err == nil {
		t.Error("observing an 11 s RTT succeeded")
	}
}

// fixedRTTs is a tiny latency matrix for Converge tests.
type fixedRTTs [][]float64

func (f fixedRTTs) Len() int { return len(f) }
func (f fixedRTTs) RTT(i, j int) (float64, bool) {
	return f[i][j], f[i][j] > 0 || i == j
}

func TestConvergeDeterministic(t *testing.T) {
	m := fixedRTTs{
		{0, 20, 50, 70},
		{20, 0, 40, 60},
		{50, 40, 0, 0}, // 2↔3 unknown in one direction
		{70, 60, 30, 0},
	}
	run := func() []Coord {
		cl, err := Converge(m, []int{0, 1, 2, 3}, 2, 100, rand.New(rand.NewPCG(8, 8)))
		if err != nil {
			t.Fatal(err)
		}
		out := make([]Coord, len(cl))
		for i, c := range cl {
			out[i] = c.Coord()
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		for j := range a[i].Vec {
			if a[i].Vec[j] != b[i].Vec[j] {
				t.Fatalf("same seed, different coordinates: %v vs %v", a[i], b[i])
			}
		}
	}
	if d := a[0].DistanceTo(a[1]); math.Abs(d-20) > 8 {
		t.Errorf("nodes 20 ms apart estimated at %.1f ms", d)
	}
	if _, err := Converge(m, []int{0}, 2, 10, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("converging a single node succeeded")
	}
}
