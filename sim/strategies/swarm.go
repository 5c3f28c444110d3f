package strategies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/sim/world"
)

// swarm is the crawlers' CAN overlay and their churn. Churn does not
// depend on the strategy, so the runs of an experiment share one swarm and
// advance in lockstep: each step the swarm applies its joins and
// departures alone, then every run handles that step in parallel while the
// overlay is only read.
type swarm struct {
	sc      *Scenario
	cfg     Config
	ov      *can.Map
	byID    map[can.PeerID]int32
	peers   []peer
	churnAt [][]int32
	r       *rand.Rand
	online  int
	// events are the current step's joins and departures.
	events []churnEvent
}

// peer is one crawler's place in the overlay. Its neighbour list and zones
// are re-read lazily after a change touched them; mu guards that during
// the parallel phase.
type peer struct {
	id       can.PeerID
	online   bool
	mu       sync.Mutex
	stale    bool // nbrs must be re-read
	oldZones bool // zones must be re-read
	nbrs     []int32
	zones    []can.Zone
}

type churnEvent struct {
	c        int32
	join     bool
	graceful bool
	// hos are the leaves a departure changed: its zones, with their heirs.
	hos []can.Leaf
}

// simTTL is the certificates' lifetime in the simulated map: longer than
// any run, as the simulator models departures, not expiries.
const simTTL = 100 * 365 * 24 * time.Hour

// simStart is the simulated clock's origin.
var simStart = time.Unix(0, 0).UTC()

func newSwarm(sc *Scenario) (*swarm, error) {
	cfg := sc.Config
	s := &swarm{
		sc:      sc,
		cfg:     cfg,
		ov:      can.NewMap(len(sc.World.CrawlerPoint[0]), simTTL),
		byID:    make(map[can.PeerID]int32, cfg.Crawlers),
		peers:   make([]peer, cfg.Crawlers),
		churnAt: make([][]int32, cfg.Steps),
		r:       rand.New(rand.NewPCG(sc.Seed, 0x636875726e)),
	}
	for c := range s.peers {
		s.peers[c].id = can.PeerID(fmt.Sprintf("c%05d", c))
		s.byID[s.peers[c].id] = int32(c)
	}
	for c := range s.peers {
		if err := s.join(0, int32(c)); err != nil {
			return nil, err
		}
	}
	s.events = s.events[:0]
	return s, nil
}

// clock is the simulated time of step.
func (s *swarm) clock(step int) time.Time {
	return simStart.Add(time.Duration(step) * Step)
}

func (s *swarm) draw(mean, sd float64) int {
	return max(1, int(math.Round(mean+sd*s.r.NormFloat64())))
}

func (s *swarm) at(step int, c int32) {
	if step < s.cfg.Steps {
		s.churnAt[step] = append(s.churnAt[step], c)
	}
}

// advance applies step's churn and records it in events.
func (s *swarm) advance(step int) error {
	s.events = s.events[:0]
	for _, c := range s.churnAt[step] {
		var err error
		if s.peers[c].online {
			err = s.depart(step, c)
		} else {
			err = s.join(step, c)
		}
		if err != nil {
			return err
		}
	}
	s.churnAt[step] = nil
	return nil
}

func (s *swarm) join(step int, c int32) error {
	p := &s.peers[c]
	changed, err := world.Join(s.ov, p.id, s.sc.World.CrawlerPoint[c], s.clock(step), s.r)
	if err != nil {
		return fmt.Errorf("recrawl sim step %d: %w", step, err)
	}
	// The new peer's neighbours were all the old owner's, or the old owner.
	for _, l := range changed {
		s.touch(l.Holder)
	}
	p.online = true
	s.online++
	s.at(step+s.draw(s.cfg.LifetimeMean, s.cfg.LifetimeSD), c)
	s.events = append(s.events, churnEvent{c: c, join: true})
	return nil
}

// depart takes crawler c offline, with notice (graceful) or not.
func (s *swarm) depart(step int, c int32) error {
	p := &s.peers[c]
	graceful := s.r.Float64() < s.cfg.GracefulShare
	// Heirs are among the departing peer's neighbours, and their new
	// neighbours were its neighbours: marking those covers every change.
	s.touch(p.id)
	// A crash ends in the same map as a leave: the manager hands the
	// zones to the same heirs once the certificates expire. Only the tasks
	// differ (lost, not moved), which the engine decides.
	hos, err := s.ov.Leave(p.id, s.clock(step))
	if err != nil {
		return fmt.Errorf("recrawl sim step %d: %w", step, err)
	}
	for _, h := range hos {
		s.peers[s.byID[h.Holder]].oldZones = true
	}
	p.online = false
	s.online--
	s.at(step+s.draw(s.cfg.RejoinMean, s.cfg.RejoinSD), c)
	s.events = append(s.events, churnEvent{c: c, graceful: graceful, hos: hos})
	return nil
}

// touch marks the crawlers whose neighbour tables an overlay change can
// alter: the peers named and all their neighbours; and the named peers'
// zones.
func (s *swarm) touch(ids ...can.PeerID) {
	for _, id := range ids {
		if c, ok := s.byID[id]; ok {
			s.peers[c].stale, s.peers[c].oldZones = true, true
		}
		for _, n := range s.ov.Neighbours(id) {
			s.peers[s.byID[n]].stale = true
		}
	}
}

// neighbours returns crawler c's neighbours. Safe during the parallel
// phase: the list is rewritten only between steps' reads.
func (s *swarm) neighbours(c int32) []int32 {
	p := &s.peers[c]
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stale {
		p.nbrs = p.nbrs[:0]
		for _, id := range s.ov.Neighbours(p.id) {
			p.nbrs = append(p.nbrs, s.byID[id])
		}
		p.stale = false
	}
	return p.nbrs
}

// zonesOf returns crawler c's zones, with neighbours' safety.
func (s *swarm) zonesOf(c int32) []can.Zone {
	p := &s.peers[c]
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.oldZones {
		p.zones, p.oldZones = s.ov.Zones(p.id), false
	}
	return p.zones
}

// owner returns the crawler whose zone holds point pt.
func (s *swarm) owner(pt can.Point) int32 {
	id, _ := s.ov.Owner(pt)
	return s.byID[id]
}
