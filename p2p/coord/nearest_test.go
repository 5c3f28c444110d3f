package coord

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hivecrawl/hivecrawl/internal/latency"
)

// TestNearestRefutesAFarLiar places PlanetLab's held-out hosts as the
// manager does, from 8 random probers each, and counts how often Nearest
// keeps the prober that really measured the shortest round trip, and how
// often the prober farthest from the host wins by reporting 1 ms, or just
// under the nearest's round trip. Without the check the liar wins every
// host.
func TestNearestRefutesAFarLiar(t *testing.T) {
	m := latency.PlanetLab()
	r := rand.New(rand.NewPCG(7, uint64(m.Len())))
	order := r.Perm(m.Len())
	nHosts := m.Len() / 5
	hosts, peers := order[:nHosts], order[nHosts:]
	clients, err := Converge(m, peers, DefaultDim, 200, r)
	if err != nil {
		t.Fatal(err)
	}
	const k = 8
	var (
		n, kept, liar1, liarShade int
		chosen, best              float64
	)
	for _, h := range hosts {
		var probes []Probe
		for _, pi := range r.Perm(len(peers)) {
			if rtt, ok := m.RTT(peers[pi], h); ok {
				probes = append(probes, Probe{Peer: clients[pi].Coord(), RTT: rtt})
			}
			if len(probes) == k {
				break
			}
		}
		if len(probes) < k {
			continue
		}
		n++
		truth, far := 0, 0
		for i, p := range probes {
			if p.RTT < probes[truth].RTT {
				truth = i
			}
			if p.RTT > probes[far].RTT {
				far = i
			}
		}
		got, _ := Nearest(probes, SolveConfig{}, r)
		if got == truth {
			kept++
		}
		if got < 0 {
			t.Fatalf("host %d: no prober kept of 8 honest ones", h)
		}
		chosen += probes[got].RTT
		best += probes[truth].RTT

		lying := slices.Clone(probes)
		lying[far].RTT = 1
		if got, _ := Nearest(lying, SolveConfig{}, r); got == far {
			liar1++
		}
		lying[far].RTT = max(probes[truth].RTT-0.5, 0.5)
		if got, _ := Nearest(lying, SolveConfig{}, r); got == far {
			liarShade++
		}
	}
	pct := func(x int) float64 { return 100 * float64(x) / float64(n) }
	t.Logf("%d hosts, 8 probers each: the true nearest kept for %.1f %% (mean round trip of the prober kept %.1f ms, of the true nearest %.1f ms); "+
		"the farthest prober wins %.1f %% by reporting 1 ms, %.1f %% by reporting just under the nearest",
		n, pct(kept), chosen/float64(n), best/float64(n), pct(liar1), pct(liarShade))
	if pct(kept) < 85 || pct(liar1) > 2 || pct(liarShade) > 25 {
		t.Errorf("want the true nearest kept for at least 85 %% of hosts, the 1 ms liar winning at most 2 %%, the shading one at most 25 %%")
	}
}

// TestNearestTakesAnUncheckableProbeAtItsWord: with no more probes than
// a fit needs, none can be checked against the others.
func TestNearestTakesAnUncheckableProbeAtItsWord(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var probes []Probe
	for i := range DefaultDim + 1 {
		v := make([]float64, DefaultDim)
		v[i%DefaultDim] = 100 * float64(i+1)
		probes = append(probes, Probe{Peer: Coord{Vec: v}, RTT: 100 + float64(i)})
	}
	probes[2].RTT = 1
	if got, refuted := Nearest(probes, SolveConfig{}, r); got != 2 || len(refuted) != 0 {
		t.Fatalf("Nearest = %d, refuted %v; want probe 2 taken at its word", got, refuted)
	}
}

// TestNearestTakesANewSwarmAtItsWord: in a new swarm every member's
// coordinate is Vivaldi's first, at the origin with the largest error,
// and predicts nothing, so the shortest round trip stands; among settled
// members a far liar is still refuted, even one claiming an unsettled
// coordinate.
func TestNearestTakesANewSwarmAtItsWord(t *testing.T) {
	fresh := Coord{Vec: []float64{0, 0, 0}, Height: 0.01, Error: 1.5}
	rtts := []float64{80, 95, 4, 120, 150, 170, 190, 210}
	probes := make([]Probe, len(rtts))
	for i, rtt := range rtts {
		probes[i] = Probe{Peer: fresh, RTT: rtt}
	}
	r := rand.New(rand.NewPCG(1, 2))
	if got, refuted := Nearest(probes, SolveConfig{}, r); got != 2 || len(refuted) > 0 {
		t.Fatalf("new swarm: kept probe %d (refuted %v), want the 4-ms one, 2, refuting none", got, refuted)
	}

	// Settled members on a line, the host beside the first; the last
	// member, 300 ms from the host, answers 1 ms and claims an unsettled
	// coordinate.
	var settled []Probe
	for _, x := range []float64{10, 60, 110, 160, 210, 260, 300} {
		settled = append(settled, Probe{Peer: Coord{Vec: []float64{x, 0, 0}, Error: 0.1}, RTT: x})
	}
	settled[len(settled)-1].RTT, settled[len(settled)-1].Peer.Error = 1, 1.5
	if got, refuted := Nearest(settled, SolveConfig{}, r); got != 0 || !slices.Equal(refuted, []int{len(settled) - 1}) {
		t.Fatalf("settled: kept probe %d (refuted %v), want 0, refuting the liar %d", got, refuted, len(settled)-1)
	}
}
