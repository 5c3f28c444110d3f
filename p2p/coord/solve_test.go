package coord

import (
	"math/rand/v2"
	"testing"
)

// TestSolveWeighsConfidentPeers: of two peers whose measurements
// disagree, the solve follows the one sure of its coordinate.
func TestSolveWeighsConfidentPeers(t *testing.T) {
	host := []float64{10, 0}
	peers := [][]float64{{0, 0}, {30, 0}, {0, 30}, {30, 30}}
	solve := func(liarErr float64) float64 {
		var ps []Probe
		for i, v := range peers {
			rtt := euclid(host, v)
			e := 0.05
			if i == 0 {
				rtt *= 3 // a wrong measurement
				e = liarErr
			}
			ps = append(ps, Probe{Peer: Coord{Vec: v, Error: e}, RTT: rtt})
		}
		sol, err := Solve(ps, SolveConfig{}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		return euclid(sol.Coord.Vec, host)
	}
	sure, unsure := solve(0.05), solve(1.4)
	if !(unsure < sure) {
		t.Fatalf("the solve misses the host by %.1f ms trusting the wrong peer and by %.1f ms doubting it", sure, unsure)
	}
}
