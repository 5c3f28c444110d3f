package recrawl

import (
	"math"
	"testing"
	"time"
)

func TestCheckPriorities(t *testing.T) {
	tests := []struct {
		name      string
		in, want  []float64
		sigma, mu float64
	}{
		{name: "ordered within mu", in: []float64{10, 20, 40}, want: []float64{10, 20, 40}, sigma: 1.5, mu: 4},
		// 15 < 20 → 20 × 1.5 = 30; 25 < 30 → 45.
		{name: "sigma cascades", in: []float64{20, 15, 25}, want: []float64{20, 30, 45}, sigma: 1.5, mu: 4},
		// 100 > 10 × 4 = 40 → 40; 500 > 40 × 4 = 160 → 160.
		{name: "mu cascades", in: []float64{10, 100, 500}, want: []float64{10, 40, 160}, sigma: 1.5, mu: 4},
		// Equal is not shorter: no σ.
		{name: "equal stays", in: []float64{10, 10}, want: []float64{10, 10}, sigma: 1.5, mu: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := append([]float64(nil), tc.in...)
			CheckPriorities(got, tc.sigma, tc.mu)
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-9 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestChangeEstimate(t *testing.T) {
	tests := []struct {
		name   string
		obs    [][3]int // pages, changed, gap minutes
		want   float64  // minutes; 0 = no estimate
		within float64
	}{
		{name: "nothing observed"},
		{name: "no change seen", obs: [][3]int{{10, 0, 60}}},
		// λ̂ = −ln((10−5+0.5)/(10+0.5)) / 60 = 0.646627 / 60 → 92.789 min.
		{name: "half changed", obs: [][3]int{{10, 5, 60}}, want: 92.789, within: 0.01},
		// All changed: −ln(0.5/10.5) = ln 21 = 3.044522 → 60/3.0445 = 19.707.
		{name: "all changed stays finite", obs: [][3]int{{10, 10, 60}}, want: 19.707, within: 0.01},
		// Two crawls of 5 pages: n = 10, X = 5, mean gap (5·40 + 5·80)/10 = 60.
		{name: "uneven gaps use the mean gap", obs: [][3]int{{5, 2, 40}, {5, 3, 80}}, want: 92.789, within: 0.01},
		{name: "nonsense ignored", obs: [][3]int{{10, 5, 60}, {3, 4, 60}, {-1, 0, 60}, {5, 1, 0}}, want: 92.789, within: 0.01},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e ChangeEstimate
			for _, o := range tc.obs {
				e.Observe(o[0], o[1], time.Duration(o[2])*time.Minute)
			}
			got, ok := e.Interval()
			if tc.want == 0 {
				if ok {
					t.Fatalf("estimate %v, want none", got)
				}
				return
			}
			if !ok || math.Abs(got.Minutes()-tc.want) > tc.within {
				t.Fatalf("estimate %v (%v), want %.3f min", got, ok, tc.want)
			}
		})
	}
}

func TestChangeEstimateConverges(t *testing.T) {
	// Pages changing as Poisson processes with a 100-min mean, crawled every
	// 60 min: P(changed) = 1 − e^(−0.6) = 0.4512. With n = 10,000 and the
	// expected X = 4512 the estimate must be within 2 % of 100 min.
	var e ChangeEstimate
	e.Observe(10000, 4512, time.Hour)
	got, ok := e.Interval()
	if !ok || math.Abs(got.Minutes()-100) > 2 {
		t.Fatalf("estimate %v, want ≈ 100 min", got)
	}
}

func TestRank(t *testing.T) {
	tests := []struct {
		name string
		in   []time.Duration
		k    int
		want []int
	}{
		// ln range ln 60 … ln 960, width ln 16 / 5: 120 → 1.25 → 1, 240 →
		// 2.5 → 2, 480 → 3.75 → 3, 960 → 5 → clamped 4.
		{name: "doubling intervals one group apart", in: mins(960, 60, 120, 240, 480, 61), k: 5, want: []int{4, 0, 1, 2, 3, 0}},
		{name: "unknown goes slowest", in: mins(60, 0, 120), k: 5, want: []int{0, 4, 4}},
		{name: "all equal", in: mins(60, 60), k: 5, want: []int{0, 0}},
		{name: "one group", in: mins(60, 960), k: 1, want: []int{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Rank(tc.in, tc.k)
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestRankEqual(t *testing.T) {
	got := RankEqual(mins(50, 10, 40, 0, 20, 30), 3)
	// Sorted: 10, 20, 30, 40, 50, unknown → groups 0, 0, 1, 1, 2, 2.
	want := []int{2, 0, 1, 2, 0, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
