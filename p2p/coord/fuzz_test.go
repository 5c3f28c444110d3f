package coord

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzSolve feeds Solve arbitrary probes, as peers that report nonsense
// could: it must never panic, and a solution it returns must be finite.
func FuzzSolve(f *testing.F) {
	seed := func(vals ...float64) []byte {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(seed(0, 0, 0, 0, 10, 10, 0, 0, 0, 10, 0, 10, 0, 0, 10, 0, 0, 10, 0, 10))
	f.Add(seed(1e300, -1e300, 0, 0, 1e-300, 0, 0, 0, 0, 1, 5, 5, 5, 0, 2, 1, 1, 1, 0, 3))
	f.Add(seed(math.NaN(), 0, 0, 0, 1, 0, 0, 0, -1, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		var probes []Probe
		for len(data) >= 40 && len(probes) < 8 {
			v := make([]float64, 5)
			for i := range v {
				v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			}
			data = data[40:]
			probes = append(probes, Probe{Peer: Coord{Vec: v[:3], Height: v[3]}, RTT: v[4]})
		}
		sol, err := Solve(probes, SolveConfig{Restarts: 1, MaxEvals: 200}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			return
		}
		for _, x := range sol.Coord.Vec {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("solution %v is not finite", sol.Coord.Vec)
			}
		}
		if math.IsNaN(sol.Residual) {
			t.Fatal("residual is NaN")
		}
	})
}
