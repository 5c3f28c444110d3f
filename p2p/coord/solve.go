package coord

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Probe is one measurement for the host solver: a peer's coordinate and the
// RTT in milliseconds it measured to the host (the median of a few samples).
type Probe struct {
	Peer Coord
	RTT  float64
}

// SolveConfig tunes Solve. The zero value means the defaults.
type SolveConfig struct {
	// Restarts is how many extra Nelder–Mead runs start from random points
	// around the probes (default 3; negative means none).
	Restarts int
	// MaxEvals bounds the objective evaluations per run (default 600).
	MaxEvals int
}

// Solution is a solved host coordinate.
type Solution struct {
	Coord Coord
	// Residual is the root mean square relative error of the fitted RTTs,
	// each weighted as the solve weighs its probe,
	// sqrt(Σ w_j((est_j − rtt_j)/rtt_j)² / Σ w_j): 0.1 means the fit misses
	// the measurements by about 10 %.
	Residual float64
}

// Plausibility limits for probes: serf rejects RTTs over 10 s, and a
// coordinate component beyond 10⁶ ms (17 minutes) is nonsense.
const (
	maxProbeRTT   = 10_000
	maxCoordValue = 1e6
)

// ErrTooFewProbes is returned by Solve with fewer than d+1 usable probes.
var ErrTooFewProbes = errors.New("coord: need at least d+1 probes")

// Solve finds a web host's coordinate from probes (see the package doc for
// the objective and how heights are treated). Probes with an RTT outside
// (0, 10 s] or an invalid or implausible coordinate (a component beyond
// 10⁶ ms) are skipped; at least
// d+1 must remain. The first run starts at the nearest peer (smallest RTT),
// each restart at a random probe's peer moved by up to its RTT in each
// dimension (drawn from r); the best fit wins. The result is deterministic
// for a given r state.
func Solve(probes []Probe, cfg SolveConfig, r *rand.Rand) (Solution, error) {
	if len(probes) == 0 {
		return Solution{}, fmt.Errorf("solve host coordinate: %w", ErrTooFewProbes)
	}
	d := len(probes[0].Peer.Vec)
	ps := make([]Probe, 0, len(probes))
	for _, p := range probes {
		if p.RTT > 0 && p.RTT <= maxProbeRTT && plausible(p.Peer, d) {
			ps = append(ps, p)
		}
	}
	if d == 0 || len(ps) < d+1 {
		return Solution{}, fmt.Errorf("solve host coordinate from %d usable probes in %d dimensions: %w", len(ps), d, ErrTooFewProbes)
	}
	if cfg.Restarts == 0 {
		cfg.Restarts = 3
	}
	if cfg.MaxEvals <= 0 {
		cfg.MaxEvals = 600
	}
	nearest := slices.MinFunc(ps, func(a, b Probe) int {
		if a.RTT != b.RTT {
			if a.RTT < b.RTT {
				return -1
			}
			return 1
		}
		return 0
	})
	// Each probe counts by how sure its peer is of its own coordinate
	// (paper 002 §3): a peer whose Vivaldi error is 0.1 weighs five times
	// one at 0.9.
	w := make([]float64, len(ps))
	var wsum float64
	for i, p := range ps {
		w[i] = 1 / (errorFloor + max(p.Peer.Error, 0))
		wsum += w[i]
	}
	f := func(x []float64) float64 {
		s := 0.0
		for i, p := range ps {
			e := (estimate(x, p.Peer) - p.RTT) / p.RTT
			s += w[i] * e * e
		}
		return s
	}
	starts := [][]float64{slices.Clone(nearest.Peer.Vec)}
	for range max(cfg.Restarts, 0) {
		p := ps[r.IntN(len(ps))]
		x := slices.Clone(p.Peer.Vec)
		for i := range x {
			x[i] += (2*r.Float64() - 1) * p.RTT
		}
		starts = append(starts, x)
	}
	best := Solution{Residual: math.Inf(1)}
	bestF := math.Inf(1)
	step := math.Max(nearest.RTT/2, 1)
	for _, x0 := range starts {
		x, fx := nelderMead(f, x0, step, cfg.MaxEvals, 1e-9, 1e-3)
		if fx < bestF {
			bestF = fx
			best = Solution{Coord: Coord{Vec: x}}
		}
	}
	if math.IsInf(bestF, 1) || math.IsNaN(bestF) {
		return Solution{}, fmt.Errorf("solve host coordinate: no finite fit")
	}
	best.Residual = math.Sqrt(bestF / wsum)
	return best, nil
}

// errorFloor keeps a probe whose peer claims a perfect coordinate from
// outweighing all others.
const errorFloor = 0.1

func plausible(c Coord, d int) bool {
	if c.Validate(d) != nil || c.Height > maxCoordValue || math.Abs(c.Adjustment) > maxCoordValue {
		return false
	}
	for _, v := range c.Vec {
		if math.Abs(v) > maxCoordValue {
			return false
		}
	}
	return true
}
