package coord

import (
	"math/rand/v2"
	"slices"
)

// A prober's round trip to a host is its own word. Nearest takes the
// shortest one only when the other probers' measurements agree it could
// be: fitted without it, the host's coordinate must predict the prober's
// round trip no more than refuteMs, or refuteRel of the prediction
// (whichever is more), above what it reported. Vivaldi predicts short
// round trips poorly (a peer 5 ms from a host is often predicted 20–40 ms
// away), hence the absolute part; the relative part allows for the fit's
// error on far hosts. On PlanetLab's matrix (TestNearestRefutesAFarLiar)
// these keep the true nearest of 8 probers for 90 % of hosts (the others
// go to the next nearest the probes confirm: 64 ms away on average where
// the true nearest is 55 ms), and the prober farthest from the host wins
// none of 98 hosts by reporting 1 ms, 11 % by reporting just under the
// nearest's round trip, which it cannot know. A prober that claims to be
// near a host it is far from is refuted; one that shades its round trip
// within the slack, or lies about its own coordinate as well, is not (its
// coordinate already places its zone, so that lie is no stronger than
// this one).
//
// Only settled coordinates (Vivaldi's error at most SettledError) make
// the fit. An unsettled one predicts nothing: a new swarm's members all
// start at the origin, and a fit from them put every host about the
// others' mean round trip away, so every answer under it by 60 ms was
// refuted (TestNearestTakesANewSwarmAtItsWord): a new swarm's hosts, all
// measured in its first second, went to members tens of milliseconds
// farther than their nearest. With fewer than d+1 settled others the
// shortest answer stands at its word, as when the others are too few;
// the manager measures such a host again once the members have settled
// (manager/placement).
const (
	refuteMs  = 60
	refuteRel = 0.5
)

// SettledError is the Vivaldi error (0 certain … 1.5 unknown) at or below
// which a coordinate counts as settled: it predicts round trips well
// enough to place by, or to check another peer's word with. Vivaldi
// brings a member's error below it within a few rounds of samples.
const SettledError = 0.5

// Nearest returns the index in probes of the probe with the shortest
// round trip that the others do not refute, -1 when there is none, and
// the indexes of the probes shorter than it that they refuted. A probe
// that cannot be checked (fewer than d+1 others usable) is taken at its
// word.
func Nearest(probes []Probe, cfg SolveConfig, r *rand.Rand) (nearest int, refuted []int) {
	order := make([]int, 0, len(probes))
	for i, p := range probes {
		if p.RTT > 0 && p.RTT <= maxProbeRTT {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case probes[a].RTT < probes[b].RTT:
			return -1
		case probes[a].RTT > probes[b].RTT:
			return 1
		}
		return 0
	})
	for _, i := range order {
		if !refutedBy(probes, i, refuted, cfg, r) {
			return i, refuted
		}
		refuted = append(refuted, i)
	}
	return -1, refuted
}

// refutedBy reports whether the settled probes other than probes[i] and
// those already refuted refute its round trip: fitted without them, the
// host is predicted much farther from its prober than it reported
// (refuteMs, refuteRel). A refuted probe stays out of the fit: a round
// trip of 1 µs weighs so much in the fit's relative errors that it would
// make every honest probe look wrong. It is false when the settled others
// are too few to fit. The prober's own error does not spare it: a liar
// would claim an unsettled coordinate.
func refutedBy(probes []Probe, i int, refuted []int, cfg SolveConfig, r *rand.Rand) bool {
	others := make([]Probe, 0, len(probes)-1)
	for j, p := range probes {
		if j != i && !slices.Contains(refuted, j) && p.Peer.Error <= SettledError {
			others = append(others, p)
		}
	}
	sol, err := Solve(others, cfg, r)
	if err != nil {
		return false
	}
	p := probes[i]
	pred := estimate(sol.Coord.Vec, p.Peer)
	return p.RTT < pred-max(refuteMs, refuteRel*pred)
}

// estimate is the round trip the fit predicts between a host at x and a
// prober at c.
func estimate(x []float64, c Coord) float64 {
	est := euclid(x, c.Vec) + c.Height
	if adj := est + c.Adjustment; adj > 0 {
		est = adj
	}
	return est
}
