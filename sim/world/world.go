// Package world builds the network a simulation runs on: web hosts and
// crawlers placed on a measured latency matrix (internal/latency, PlanetLab
// by default) enlarged by paper 000's replication method, with coordinates
// computed by the real p2p/coord code — Vivaldi (Converge) for crawlers, the
// GNP-style host solver (Solve) for web hosts from RTTs measured by a few
// crawlers — and mapped into the CAN box by Bounds trained from the
// crawlers' coordinates (or, Config.BoxFromHosts, the hosts'), trimming λ %
// per side of each dimension (paper 002 §3.2).
//
// The matrix's originals are split between hosts and crawlers in the
// proportion of paper 000 (1,600 hosts and 140 crawlers out of King's 1,740
// nodes); replicas inherit their original's role, so hosts and crawlers do
// not share a point. Caveat: the PlanetLab matrix has 490 nodes where King
// had 1,740, so each original carries about three times as many replicas.
package world

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/latency"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// Config sizes a world. Zero fields take the defaults noted.
type Config struct {
	// Hosts and Crawlers are the node counts wanted.
	Hosts, Crawlers int
	// CrawlerShare is the share of the matrix's originals that become
	// crawlers. 0 = 140/1740, paper 000's split.
	CrawlerShare float64
	// Dim is the coordinate and CAN dimension. 0 = can.DefaultDim.
	Dim int
	// VivaldiRounds is how many rounds Converge runs. 0 = 150.
	VivaldiRounds int
	// Probes is how many crawlers measure each host for the solver.
	// 0 = 2·(Dim+1).
	Probes int
	// Matrix is the base matrix. nil = latency.PlanetLab().
	Matrix *latency.Matrix
	// BoxFromHosts trains the CAN box from the hosts' solved coordinates,
	// paper 002 §3.2's "historical records of known Web hosts' network
	// coordinates"; false trains it from the crawlers' (the default, as
	// the live overlay does from its members).
	BoxFromHosts bool
	// Trim is λ, the percentage of the sample trimmed off each side of
	// each dimension. 0 = coord.DefaultTrim.
	Trim float64
}

// World is a built network. Host h sits at matrix node HostNode[h],
// crawler c at CrawlerNode[c].
type World struct {
	Matrix       *latency.Matrix
	HostNode     []int
	CrawlerNode  []int
	CrawlerCoord []coord.Coord
	HostCoord    []coord.Coord
	Bounds       coord.Bounds
	HostPoint    []can.Point
	CrawlerPoint []can.Point
	// HostResidual is each host solution's RMS relative error.
	HostResidual []float64
}

// Build places cfg.Hosts hosts and cfg.Crawlers crawlers. It is
// deterministic for a given seed; host solving runs in parallel with one
// random source per host.
func Build(cfg Config, seed uint64) (*World, error) {
	if cfg.Hosts < 1 || cfg.Crawlers < 2 {
		return nil, fmt.Errorf("build world: need at least 1 host and 2 crawlers, got %d and %d", cfg.Hosts, cfg.Crawlers)
	}
	if cfg.CrawlerShare == 0 {
		cfg.CrawlerShare = 140.0 / 1740
	}
	if cfg.Dim == 0 {
		cfg.Dim = can.DefaultDim
	}
	if cfg.VivaldiRounds == 0 {
		cfg.VivaldiRounds = 150
	}
	if cfg.Probes == 0 {
		cfg.Probes = 2 * (cfg.Dim + 1)
	}
	base := cfg.Matrix
	if base == nil {
		base = latency.PlanetLab()
	}
	r := rand.New(rand.NewPCG(seed, 0x776f726c64))
	n := base.Len()
	nc := max(1, int(math.Round(float64(n)*cfg.CrawlerShare)))
	perm := r.Perm(n)
	isCrawler := make([]bool, n)
	for _, o := range perm[:nc] {
		isCrawler[o] = true
	}
	// Enough replicas that both roles get their counts: replicas cycle
	// round-robin over the originals.
	per := max(ceilDiv(cfg.Hosts, n-nc), ceilDiv(cfg.Crawlers, nc))
	m := base.Replicate(n*per, r)
	w := &World{Matrix: m}
	for k := range m.Len() {
		o := m.Origin(k)
		if isCrawler[o] && len(w.CrawlerNode) < cfg.Crawlers {
			w.CrawlerNode = append(w.CrawlerNode, k)
		} else if !isCrawler[o] && len(w.HostNode) < cfg.Hosts {
			w.HostNode = append(w.HostNode, k)
		}
	}
	clients, err := coord.Converge(m, w.CrawlerNode, cfg.Dim, cfg.VivaldiRounds, r)
	if err != nil {
		return nil, fmt.Errorf("build world: %w", err)
	}
	w.CrawlerCoord = make([]coord.Coord, len(clients))
	for i, c := range clients {
		w.CrawlerCoord[i] = c.Coord()
	}
	if err := w.solveHosts(cfg.Probes, seed); err != nil {
		return nil, err
	}
	sample, trim := w.CrawlerCoord, cfg.Trim
	if cfg.BoxFromHosts {
		sample = w.HostCoord
	}
	if trim == 0 {
		trim = coord.DefaultTrim
	}
	if w.Bounds, err = coord.TrainBounds(sample, trim); err != nil {
		return nil, fmt.Errorf("build world: %w", err)
	}
	w.CrawlerPoint = make([]can.Point, len(w.CrawlerCoord))
	for i, c := range w.CrawlerCoord {
		w.CrawlerPoint[i] = w.Bounds.Map(c)
	}
	w.HostPoint = make([]can.Point, len(w.HostCoord))
	for h, c := range w.HostCoord {
		w.HostPoint[h] = w.Bounds.Map(c)
	}
	return w, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// solveHosts gives every host a coordinate from probes crawlers' RTTs; the
// crawlers' coordinates must be set.
func (w *World) solveHosts(probes int, seed uint64) error {
	nh := len(w.HostNode)
	w.HostCoord = make([]coord.Coord, nh)
	w.HostResidual = make([]float64, nh)
	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := wk; h < nh; h += workers {
				if err := w.solveHost(h, probes, seed); err != nil {
					errs[wk] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *World) solveHost(h, probes int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, uint64(h)+1<<32))
	ps := make([]coord.Probe, 0, probes)
	for tries := 0; len(ps) < probes && tries < 20*probes; tries++ {
		c := r.IntN(len(w.CrawlerNode))
		rtt, ok := w.Matrix.RTT(w.CrawlerNode[c], w.HostNode[h])
		if !ok || !(rtt > 0) {
			continue
		}
		ps = append(ps, coord.Probe{Peer: w.CrawlerCoord[c], RTT: rtt})
	}
	sol, err := coord.Solve(ps, coord.SolveConfig{}, r)
	if err != nil {
		return fmt.Errorf("build world: host %d: %w", h, err)
	}
	w.HostCoord[h] = sol.Coord
	w.HostResidual[h] = sol.Residual
	return nil
}

// RTT returns the round-trip time in milliseconds between crawler c and
// host h: measured (either direction) where the matrix knows it, else
// estimated from their coordinates.
func (w *World) RTT(c, h int) float64 {
	if v, ok := w.Matrix.Sym(w.CrawlerNode[c], w.HostNode[h]); ok && v > 0 {
		return v
	}
	return w.CrawlerCoord[c].DistanceTo(w.HostCoord[h])
}

// Join adds crawler id to map m at its point p; where the zone at p is
// split as deep as a map keeps exact (can.ErrTooDeep: many crawlers share
// the point, as replicated ones or ones clamped to a corner do), it joins
// at a point drawn from r instead, as a peer the manager refuses does.
func Join(m *can.Map, id can.PeerID, p can.Point, now time.Time, r *rand.Rand) ([]can.Leaf, error) {
	changed, err := m.Join(id, p, now)
	for try := 0; errors.Is(err, can.ErrTooDeep) && try < 64; try++ {
		q := make(can.Point, len(p))
		for k := range q {
			q[k] = r.Float64()
		}
		changed, err = m.Join(id, q, now)
	}
	return changed, err
}
