package rtt

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// Locator computes a web host's point in the CAN space, the bootstrap
// peer's step 3 of a task's life (design.md §2, §4): peers whose coordinates
// are known measure the HTTP RTT to the host (wire.MeasureProtocol), the host
// coordinate is solved from their answers (coord.Solve) and mapped into the
// CAN space with the trained bounds.
type Locator struct {
	// Host opens the measure streams.
	Host StreamOpener
	// Bounds map coordinates into the CAN space.
	Bounds coord.Bounds
	// Samples is the connect times per measurement; 0 means the measuring
	// peer's default.
	Samples int

	mu   sync.Mutex // guards rand
	rand *rand.Rand
}

// NewLocator returns a Locator; r seeds the solver's restarts.
func NewLocator(h StreamOpener, b coord.Bounds, r *rand.Rand) *Locator {
	return &Locator{Host: h, Bounds: b, rand: r}
}

// Measured is a web host's coordinate as solved from members'
// measurements, with the member that measured the shortest round trip to
// it: the one member known, not predicted, to be near the host.
type Measured struct {
	coord.Solution
	// Nearest is the prober that measured the shortest round trip the
	// others do not refute, RTT that round trip in milliseconds; empty
	// when every measurement was refuted.
	Nearest peer.ID
	RTT     float64
}

// Locate asks probers (at least d+1 of them should answer; their addresses
// must be in the host's peerstore) to measure hostPort and returns the
// host's CAN point and the solver's fit.
func (l *Locator) Locate(ctx context.Context, hostPort string, probers []peer.ID) (can.Point, coord.Solution, error) {
	m, err := l.Solve(ctx, hostPort, probers)
	if err != nil {
		return nil, m.Solution, err
	}
	return l.Bounds.Map(m.Coord), m.Solution, nil
}

// Solve is Locate without the mapping: the host's network coordinate, and
// the prober nearest the host: the shortest round trip the other probers'
// measurements do not refute (coord.Nearest). A refuted measurement is
// left out of the coordinate's fit as well.
func (l *Locator) Solve(ctx context.Context, hostPort string, probers []peer.ID) (Measured, error) {
	type answer struct {
		resp *wire.MeasureResponse
		err  error
	}
	answers := make([]answer, len(probers))
	var wg sync.WaitGroup
	for i, p := range probers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := Ask(ctx, l.Host, p, hostPort, l.Samples)
			answers[i] = answer{resp, err}
		}()
	}
	wg.Wait()
	var (
		m       Measured
		probes  []coord.Probe
		by      []peer.ID // by[i] measured probes[i]
		lastErr error
	)
	for i, a := range answers {
		if a.err != nil {
			lastErr = a.err
			continue
		}
		if a.resp.Coord == nil {
			continue
		}
		c := a.resp.Coord.Coord()
		probes = append(probes, coord.Probe{Peer: c, RTT: float64(a.resp.MedianMicros) / 1000})
		by = append(by, probers[i])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// The nearest is the shortest round trip the other probers do not
	// refute (coord.Nearest); a refuted one is left out of the fit too.
	nearest, refuted := coord.Nearest(probes, coord.SolveConfig{}, l.rand)
	if nearest >= 0 {
		m.Nearest, m.RTT = by[nearest], probes[nearest].RTT
	}
	kept := probes[:0:0]
	for i, p := range probes {
		if !slices.Contains(refuted, i) {
			kept = append(kept, p)
		}
	}
	sol, err := coord.Solve(kept, coord.SolveConfig{}, l.rand)
	if err != nil {
		if lastErr != nil {
			return Measured{}, fmt.Errorf("locate %s: %w (last measurement error: %v)", hostPort, err, lastErr)
		}
		return Measured{}, fmt.Errorf("locate %s: %w", hostPort, err)
	}
	m.Solution = sol
	return m, nil
}
