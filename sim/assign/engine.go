package assign

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/hashring"
	"github.com/hivecrawl/hivecrawl/sim/world"
)

const (
	stFree uint8 = iota
	stQueued
	stRunning
)

type ref struct{ id, gen uint32 }

type task struct {
	unit     int32
	crawler  int32
	gen      uint32
	state    uint8
	enqueued int32
	rate     float64 // bits/s while running
	rtt      float64 // ms, while running
}

type crawler struct {
	id      can.PeerID
	online  bool
	queue   []ref
	head    int
	queued  int
	running []uint32
	pages   int64
	dirty   bool
}

type engine struct {
	sc       *Scenario
	cfg      Config
	scheme   Scheme
	units    []Unit
	limit    int // crawlers taking part (Fig. 22)
	ov       *can.Map
	ring     *hashring.Ring
	byID     map[can.PeerID]int32
	cr       []crawler
	tasks    []task
	free     []uint32
	submitAt [][]int32
	finishAt [][]ref
	expireAt [][]ref
	churnAt  [][]int32
	dirty    []int32
	r        *rand.Rand
	step     int
	res      *Result

	online               int
	rate, rttSum         float64
	running, queued      int
	runPages, queuePages int64
	acc                  Sample
	accN                 int
	migrated             int
	migratedPages        int64
	done                 []int // completions per unit
	live                 []int // tasks per unit queued or running
	capacity             can.Capacity
}

// Run simulates scheme with the first limit crawlers (0 = all).
func (s *Scenario) Run(scheme Scheme, limit int) (*Result, error) {
	e := s.newEngine(scheme, limit)
	for e.step = 0; e.step < e.cfg.Steps; e.step++ {
		if err := e.churn(); err != nil {
			return nil, err
		}
		e.finishes()
		e.expiries()
		e.submits()
		e.startAll()
		e.sample()
	}
	e.finish()
	return e.res, nil
}

// newEngine sets up a run of scheme with the first limit crawlers (0 =
// all), with every arrival and first submission scheduled.
func (s *Scenario) newEngine(scheme Scheme, limit int) *engine {
	cfg := s.Config
	if limit <= 0 || limit > cfg.Crawlers {
		limit = cfg.Crawlers
	}
	units := s.Whole
	if scheme == LBISplit {
		units = s.Split
	}
	e := &engine{
		sc: s, cfg: cfg, scheme: scheme, units: units, limit: limit,
		ov:       can.NewMap(len(s.World.CrawlerPoint[0]), simTTL),
		ring:     hashring.New(0),
		byID:     make(map[can.PeerID]int32, limit),
		cr:       make([]crawler, limit),
		submitAt: make([][]int32, cfg.Steps),
		finishAt: make([][]ref, cfg.Steps),
		expireAt: make([][]ref, cfg.Steps),
		churnAt:  make([][]int32, cfg.Steps),
		r:        rand.New(rand.NewPCG(s.Seed, 0x6368726e)),
		res:      &Result{Scheme: scheme, Crawlers: limit, Units: len(units)},
		done:     make([]int, len(units)),
		live:     make([]int, len(units)),
		capacity: can.Capacity{BWDownload: 1, MemoryGB: 1},
	}
	for c := range e.cr {
		e.cr[c].id = crawlerID(c)
		e.byID[e.cr[c].id] = int32(c)
		e.at(&e.churnAt, s.Arrive[c], int32(c))
	}
	for u, un := range units {
		e.at(&e.submitAt, s.First[un.Host], int32(u))
	}
	return e
}

func (e *engine) at(b *[][]int32, s int, v int32) {
	if s < e.cfg.Steps {
		(*b)[s] = append((*b)[s], v)
	}
}

func (e *engine) atRef(b *[][]ref, s int, v ref) {
	if s < e.cfg.Steps {
		(*b)[s] = append((*b)[s], v)
	}
}

func (e *engine) draw(mean, sd float64) int {
	return max(1, int(math.Round(mean+sd*e.r.NormFloat64())))
}

func (e *engine) valid(r ref, st uint8) bool {
	t := &e.tasks[r.id]
	return t.gen == r.gen && t.state == st
}

func (e *engine) markDirty(c int32) {
	if !e.cr[c].dirty {
		e.cr[c].dirty = true
		e.dirty = append(e.dirty, c)
	}
}

// simTTL is the certificates' lifetime in the simulated map: longer than
// any run, as the simulator models departures, not expiries.
const simTTL = 100 * 365 * 24 * time.Hour

// clock is the simulated time of the current step.
func (e *engine) clock() time.Time {
	return time.Unix(0, 0).UTC().Add(time.Duration(float64(e.step) * e.cfg.StepSeconds * float64(time.Second)))
}

func hostName(h int) string { return "host" + strconv.Itoa(h) + ".example" }

func crawlerID(c int) can.PeerID { return can.PeerID("c" + strconv.Itoa(c)) }

// owner returns the crawler a scheme first hands unit u to.
func (e *engine) owner(u int32) (int32, bool) {
	var (
		id can.PeerID
		ok bool
	)
	if e.scheme == DHT {
		id, ok = e.ring.Owner(hostName(e.units[u].Host))
	} else {
		id, ok = e.ov.Owner(e.sc.World.HostPoint[e.units[u].Host])
	}
	return e.byID[id], ok
}

func (e *engine) load(c int32) can.Load {
	cr := &e.cr[c]
	return can.NewLoad(cr.queued+len(cr.running), cr.pages, e.capacity)
}

// place routes unit u to its owner and, under the LBI schemes, applies
// load balancing on insert.
func (e *engine) place(u int32) (int32, bool) {
	cur, ok := e.owner(u)
	if !ok {
		return 0, false
	}
	if e.scheme == DHT || e.scheme == NCCAN {
		return cur, true
	}
	ot := can.Threshold(e.cfg.OT, e.capacity)
	pt := e.sc.World.HostPoint[e.units[u].Host]
	for ttl := e.cfg.TTL; ttl > 0; {
		self := e.load(cur)
		nbrs := e.ov.NeighbourInfos(e.cr[cur].id, func(id can.PeerID) can.Load { return e.load(e.byID[id]) })
		d := can.DecideInsert(self, ot, nbrs, ttl)
		if d.Accept {
			break
		}
		to := d.To
		if e.scheme == LBIRTT {
			to = nearLight(self, nbrs, pt, d.To)
		}
		cur, ttl = e.byID[to], d.TTL
	}
	return cur, true
}

// nearLight picks, among neighbours lighter than self, the one that
// minimises RPL/RPL_self + distance to the host's point / the box's
// diagonal; fallback is can.DecideInsert's choice.
func nearLight(self can.Load, nbrs []can.NeighbourInfo, pt can.Point, fallback can.PeerID) can.PeerID {
	best, bestScore := fallback, math.Inf(1)
	diag := math.Sqrt(float64(len(pt)))
	for _, n := range nbrs {
		if !(n.Load.RPL < self.RPL) {
			continue
		}
		d := math.Inf(1)
		for _, z := range n.Zones {
			d = math.Min(d, math.Sqrt(z.Dist2(pt)))
		}
		if s := n.Load.RPL/self.RPL + d/diag; s < bestScore {
			best, bestScore = n.ID, s
		}
	}
	return best
}

func (e *engine) submits() {
	for _, u := range e.submitAt[e.step] {
		e.at(&e.submitAt, e.step+e.cfg.Resubmit, u)
		if e.cfg.OneConnection && e.live[u] > 0 {
			e.res.Skipped++
			continue
		}
		e.res.Submitted++
		c, ok := e.place(u)
		if !ok {
			e.res.Refused++
			continue
		}
		var id uint32
		if n := len(e.free); n > 0 {
			id, e.free = e.free[n-1], e.free[:n-1]
		} else {
			e.tasks = append(e.tasks, task{})
			id = uint32(len(e.tasks) - 1)
		}
		e.tasks[id].unit = u
		e.live[u]++
		e.res.MaxConcurrent = max(e.res.MaxConcurrent, e.live[u])
		e.tasks[id].enqueued = int32(e.step)
		e.enqueue(c, id)
		e.atRef(&e.expireAt, e.step+e.cfg.Resubmit, ref{id, e.tasks[id].gen})
	}
	e.submitAt[e.step] = nil
}

func (e *engine) enqueue(c int32, id uint32) {
	t := &e.tasks[id]
	t.state, t.crawler = stQueued, c
	cr := &e.cr[c]
	cr.queue = append(cr.queue, ref{id, t.gen})
	cr.queued++
	p := int64(e.units[t.unit].Pages)
	cr.pages += p
	e.queued++
	e.queuePages += p
	e.markDirty(c)
}

func (e *engine) release(id uint32) {
	t := &e.tasks[id]
	e.live[t.unit]--
	t.gen++
	t.state = stFree
	e.free = append(e.free, id)
}

// drop takes a task off its crawler.
func (e *engine) drop(id uint32) {
	t := &e.tasks[id]
	cr := &e.cr[t.crawler]
	p := int64(e.units[t.unit].Pages)
	cr.pages -= p
	switch t.state {
	case stQueued:
		cr.queued--
		e.queued--
		e.queuePages -= p
	case stRunning:
		for i, r := range cr.running {
			if r == id {
				cr.running[i] = cr.running[len(cr.running)-1]
				cr.running = cr.running[:len(cr.running)-1]
				break
			}
		}
		e.running--
		e.runPages -= p
		e.rate -= t.rate
		e.rttSum -= t.rtt
	}
	e.markDirty(t.crawler)
}

func (e *engine) finishes() {
	for _, r := range e.finishAt[e.step] {
		if !e.valid(r, stRunning) {
			continue
		}
		u := e.tasks[r.id].unit
		e.drop(r.id)
		e.release(r.id)
		e.done[u]++
		e.res.Completed++
	}
	e.finishAt[e.step] = nil
}

func (e *engine) expiries() {
	for _, r := range e.expireAt[e.step] {
		if e.valid(r, stQueued) {
			e.drop(r.id)
			e.release(r.id)
			e.res.Cancelled++
		}
	}
	e.expireAt[e.step] = nil
}

func (e *engine) startAll() {
	for _, c := range e.dirty {
		cr := &e.cr[c]
		cr.dirty = false
		for len(cr.running) < e.cfg.CL && cr.queued > 0 {
			r := cr.queue[cr.head]
			cr.head++
			if !e.valid(r, stQueued) {
				continue
			}
			if e.step-int(e.tasks[r.id].enqueued) >= e.cfg.Resubmit {
				e.drop(r.id)
				e.release(r.id)
				e.res.Cancelled++
				cr.dirty = false
				continue
			}
			e.start(c, r)
		}
		if cr.queued == 0 {
			cr.queue, cr.head = cr.queue[:0], 0
		}
	}
	e.dirty = e.dirty[:0]
}

// start fixes the task's execution time (paper 002 §5.3): pages × (RTT +
// page / bandwidth + politeness wait).
func (e *engine) start(c int32, r ref) {
	t := &e.tasks[r.id]
	cr := &e.cr[c]
	un := e.units[t.unit]
	pages := float64(un.Pages)
	bits := e.cfg.PageBytes * 8
	rtt := e.sc.World.RTT(int(c), un.Host)
	if e.cfg.RTTScale > 0 {
		rtt *= e.cfg.RTTScale
	}
	secs := pages * e.cfg.pageSeconds(rtt)
	t.state, t.rate, t.rtt = stRunning, pages*bits/secs, rtt
	cr.queued--
	cr.running = append(cr.running, r.id)
	e.queued--
	e.queuePages -= int64(un.Pages)
	e.running++
	e.runPages += int64(un.Pages)
	e.rate += t.rate
	e.rttSum += rtt
	e.atRef(&e.finishAt, e.step+max(1, int(math.Ceil(secs/e.cfg.StepSeconds))), r)
}

func (e *engine) churn() error {
	for _, c := range e.churnAt[e.step] {
		cr := &e.cr[c]
		if !cr.online {
			pt := e.sc.World.CrawlerPoint[c]
			if e.cfg.LoadJoin && e.scheme != DHT {
				pt = e.joinPoint(pt)
			}
			if _, err := world.Join(e.ov, cr.id, pt, e.clock(), e.r); err != nil {
				return fmt.Errorf("assignment sim step %d: %w", e.step, err)
			}
			if e.scheme == DHT { // the only scheme that reads the ring
				if err := e.ring.Add(cr.id, 1); err != nil {
					return fmt.Errorf("assignment sim step %d: %w", e.step, err)
				}
			}
			cr.online = true
			e.online++
			e.at(&e.churnAt, e.step+e.draw(e.cfg.LifetimeMean, e.cfg.LifetimeSD), c)
			continue
		}
		leave := e.r.Float64() < e.cfg.LeaveShare
		var held []uint32
		held = append(held, cr.running...)
		for _, r := range cr.queue[cr.head:] {
			if e.valid(r, stQueued) && e.tasks[r.id].crawler == c {
				held = append(held, r.id)
			}
		}
		for _, id := range held {
			e.drop(id)
		}
		cr.queue, cr.head, cr.running = cr.queue[:0], 0, cr.running[:0]
		// A crash ends in the same map as a leave: the manager hands the
		// zones to the same heirs once the certificates expire. Only the
		// tasks differ (lost, not moved).
		if _, err := e.ov.Leave(cr.id, e.clock()); err != nil {
			return fmt.Errorf("assignment sim step %d: %w", e.step, err)
		}
		if e.scheme == DHT {
			e.ring.Remove(cr.id)
		}
		cr.online = false
		e.online--
		e.at(&e.churnAt, e.step+e.draw(e.cfg.RejoinMean, e.cfg.RejoinSD), c)
		for _, id := range held {
			to, ok := e.owner(e.tasks[id].unit)
			if !leave || !ok {
				e.release(id)
				e.res.Lost++
				continue
			}
			// Re-execution: the heir starts the task again.
			e.tasks[id].gen++
			e.enqueue(to, id)
			if d := int(e.tasks[id].enqueued) + e.cfg.Resubmit; d > e.step {
				e.atRef(&e.expireAt, d, ref{id, e.tasks[id].gen})
			}
			e.migrated++
			e.migratedPages += int64(e.units[e.tasks[id].unit].Pages)
		}
	}
	e.churnAt[e.step] = nil
	return nil
}
