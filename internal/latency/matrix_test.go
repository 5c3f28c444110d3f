package latency

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEmbeddedMatrices(t *testing.T) {
	tests := []struct {
		name      string
		m         *Matrix
		n         int
		i, j      int
		want      float64
		minKnown  float64 // share of known off-diagonal entries
		unknownIJ [2]int  // an entry stored as 0 in the file, or -1
	}{
		{"planetlab in ms", PlanetLab(), 490, 0, 3, 121.42, 0.999, [2]int{-1, -1}},
		{"seattle converted from seconds", Seattle(), 99, 0, 1, 170, 0.99, [2]int{0, 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.m.Len() != tc.n {
				t.Fatalf("Len = %d, want %d", tc.m.Len(), tc.n)
			}
			if v, ok := tc.m.RTT(tc.i, tc.j); !ok || math.Abs(v-tc.want) > 1e-9 {
				t.Errorf("RTT(%d,%d) = %v, %v, want %v", tc.i, tc.j, v, ok, tc.want)
			}
			known := 0
			for i := range tc.n {
				if v, ok := tc.m.RTT(i, i); !ok || v != 0 {
					t.Fatalf("RTT(%d,%d) = %v, %v", i, i, v, ok)
				}
				for j := range tc.n {
					if v, ok := tc.m.RTT(i, j); i != j && ok {
						known++
						if !(v > 0) {
							t.Fatalf("known RTT(%d,%d) = %v", i, j, v)
						}
					}
				}
			}
			share := float64(known) / float64(tc.n*(tc.n-1))
			if share < tc.minKnown {
				t.Errorf("%.4f of entries known, want ≥ %v", share, tc.minKnown)
			}
			if u := tc.unknownIJ; u[0] >= 0 {
				if v, ok := tc.m.RTT(u[0], u[1]); ok {
					t.Errorf("RTT(%d,%d) = %v, want unknown (0 in the file)", u[0], u[1], v)
				}
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		scale   float64
		n       int
		unknown [][2]int
		wantErr bool
	}{
		{"tabs", "0\t1\n2\t0\n", 1, 2, nil, false},
		{"spaces and blank lines", "\n0 1.5\n\n2 0\n", 1, 2, nil, false},
		{"zero off the diagonal is unknown", "0\t0\n2\t0\n", 1, 2, [][2]int{{0, 1}}, false},
		{"short row leaves unknown", "0\t1\t2\n1\n1\t2\t0\n", 1, 3, [][2]int{{1, 2}}, false},
		{"negative and NaN are unknown", "0\t-1\nNaN\t0\n", 1, 2, [][2]int{{0, 1}, {1, 0}}, false},
		{"long row", "0\t1\t2\n1\t0\n", 1, 0, nil, true},
		{"not a number", "0\tx\n1\t0\n", 1, 0, nil, true},
		{"empty", "\n\n", 1, 0, nil, true},
		{"bad scale", "0\n", 0, 0, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(strings.NewReader(tc.in), tc.scale)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Parse error %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if m.Len() != tc.n {
				t.Errorf("Len = %d, want %d", m.Len(), tc.n)
			}
			for _, u := range tc.unknown {
				if v, ok := m.RTT(u[0], u[1]); ok {
					t.Errorf("RTT(%d,%d) = %v, want unknown", u[0], u[1], v)
				}
			}
		})
	}
	m, _ := Parse(strings.NewReader("0\t0.2\n0.3\t0\n"), 1000)
	if v, _ := m.RTT(0, 1); math.Abs(v-200) > 1e-9 {
		t.Errorf("scaled RTT = %v, want 200", v)
	}
	if v, _ := m.Sym(0, 1); math.Abs(v-250) > 1e-9 {
		t.Errorf("Sym = %v, want 250", v)
	}
}

func TestReplicate(t *testing.T) {
	base, err := Parse(strings.NewReader("0\t10\t40\n10\t0\t0\n40\t30\t0\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	m := base.Replicate(12, rand.New(rand.NewPCG(1, 1)))
	if m.Len() != 12 {
		t.Fatalf("Len = %d, want 12", m.Len())
	}
	for i := range 3 {
		for j := range 3 {
			a, okA := base.RTT(i, j)
			b, okB := m.RTT(i, j)
			if okA != okB || (okA && a != b) {
				t.Errorf("original entry (%d,%d) changed: %v,%v -> %v,%v", i, j, a, okA, b, okB)
			}
		}
	}
	for k := 3; k < 12; k++ {
		o := m.Origin(k)
		if o != (k-3)%3 {
			t.Errorf("Origin(%d) = %d, want round-robin %d", k, o, (k-3)%3)
		}
		nn, _ := base.Nearest(o)
		r, ok := m.RTT(k, o)
		if !ok || r < 0.1*nn || r > 0.5*nn {
			t.Errorf("replica %d of %d sits %v ms away, want 10–50 %% of %v", k, o, r, nn)
		}
		for j := range 12 {
			if m.Origin(j) == o || j == k {
				continue
			}
			want, okW := base.RTT(o, m.Origin(j))
			got, okG := m.RTT(k, j)
			if okW != okG {
				t.Errorf("RTT(%d,%d) known = %v, base knows %v", k, j, okG, okW)
			}
			if okW && !(got > want) {
				t.Errorf("RTT(%d,%d) = %v, not beyond its originals' %v", k, j, got, want)
			}
		}
	}
	again := base.Replicate(12, rand.New(rand.NewPCG(1, 1)))
	for k := range 12 {
		a, _ := m.RTT(k, 0)
		b, _ := again.RTT(k, 0)
		if a != b {
			t.Fatalf("same seed, different RTT(%d,0): %v vs %v", k, a, b)
		}
	}
	if base.Replicate(2, nil) != base {
		t.Error("shrinking replicate should return the matrix itself")
	}
	big := PlanetLab().Replicate(16000, rand.New(rand.NewPCG(2, 2)))
	if v, ok := big.RTT(15999, 7); !ok || !(v > 0) {
		t.Errorf("RTT in a 16,000-node replica = %v, %v", v, ok)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("0\t1\n1\t0\n", 1.0)
	f.Add("0 0.1 0.2\n0.1 0 0\n0.2 0 0\n", 1000.0)
	f.Add("0\tNaN\n+Inf\t0", 1.0)
	f.Add("1e308\t1e308\n1e308\t1e308\n", 10.0)
	f.Fuzz(func(t *testing.T, in string, scale float64) {
		m, err := Parse(strings.NewReader(in), scale)
		if err != nil {
			if m != nil {
				t.Fatal("matrix returned with an error")
			}
			return
		}
		if m.Len() < 1 || m.Len() > MaxNodes {
			t.Fatalf("Len = %d", m.Len())
		}
		for i := range m.Len() {
			for j := range m.Len() {
				v, ok := m.RTT(i, j)
				if i == j && (!ok || v != 0) {
					t.Fatalf("diagonal (%d,%d) = %v, %v", i, j, v, ok)
				}
				if ok && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || (i != j && v == 0)) {
					t.Fatalf("RTT(%d,%d) = %v known", i, j, v)
				}
			}
		}
	})
}
