package coord

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkSolve8(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	host := Coord{Vec: []float64{10, 20, 30}}
	probes := make([]Probe, 8)
	for j := range probes {
		c := Coord{Vec: []float64{r.Float64() * 200, r.Float64() * 200, r.Float64() * 200}, Height: 3}
		probes[j] = Probe{Peer: c, RTT: c.DistanceTo(host) * (0.9 + 0.2*r.Float64())}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(probes, SolveConfig{}, r); err != nil {
			b.Fatal(err)
		}
	}
}
