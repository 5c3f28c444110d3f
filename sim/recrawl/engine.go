package recrawl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	mr "github.com/hivecrawl/hivecrawl/manager/recrawl"
	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// ref names one incarnation of a pooled task: a stale ref (the task was
// freed and reused since) has a different gen.
type ref struct{ id, gen uint32 }

const (
	stFree uint8 = iota
	stQueued
	stRunning
)

type task struct {
	ch       int32
	crawler  int32
	gen      uint32
	state    uint8
	deadline int32   // last step the task may wait in a queue
	rate     float64 // bits/s while running
}

type crawler struct {
	id       can.PeerID
	online   bool
	capacity can.Capacity
	ot       float64
	queue    []ref // FIFO from head; may hold stale refs
	head     int
	queued   int
	running  []uint32
	pieces   int
	pages    int64
	stale    bool // nbrs must be read again from the overlay
	oldZones bool // zones must be read again
	nbrs     []int32
	zones    []can.Zone
	dirty    bool
}

type engine struct {
	sc       *Scenario
	cfg      Config
	strat    mr.Strategy
	ov       *can.Overlay
	owner    []int32 // last known owner of each channel's host point, -1 none
	byID     map[can.PeerID]int32
	cr       []crawler
	tasks    []task
	free     []uint32
	submitAt [][]int32
	finishAt [][]ref
	expireAt [][]ref
	churnAt  [][]int32
	dirty    []int32
	churnR   *rand.Rand
	nbrBuf   []can.NeighbourInfo
	step     int
	now      time.Time
	res      *Result
	cur      []float64 // groups' intervals in steps
	updates  []int

	online, queued, running int
	rate                    float64 // Σ rate of running tasks, bits/s
	acc                     Sample  // running sums of the current window
	accN                    int
	intervalSum             []float64
	poolI                   [][]int32
	poolR                   [][]ref
}

// Run simulates the scenario under strategy k with the given success-rate
// counting rule.
func (s *Scenario) Run(k Kind, counting mr.Counting) (*Result, error) {
	strat, err := s.strategy(k, counting)
	if err != nil {
		return nil, err
	}
	cfg := s.Config
	ng := len(cfg.GroupShares)
	e := &engine{
		sc:          s,
		cfg:         cfg,
		strat:       strat,
		ov:          can.NewOverlay(len(s.World.CrawlerPoint[0])),
		byID:        make(map[can.PeerID]int32, cfg.Crawlers),
		cr:          make([]crawler, cfg.Crawlers),
		submitAt:    make([][]int32, cfg.Steps),
		finishAt:    make([][]ref, cfg.Steps),
		expireAt:    make([][]ref, cfg.Steps),
		churnAt:     make([][]int32, cfg.Steps),
		churnR:      rand.New(rand.NewPCG(s.Seed, 0x636875726e)),
		res:         &Result{Kind: k, Counting: counting, Groups: make([]GroupResult, ng)},
		updates:     make([]int, len(s.Channels)),
		owner:       make([]int32, len(s.Channels)),
		intervalSum: make([]float64, ng),
	}
	e.setIntervals()
	for c := range e.cr {
		cr := &e.cr[c]
		cr.id = can.PeerID(fmt.Sprintf("c%05d", c))
		cr.capacity = can.Capacity{BWDownload: s.Bandwidth[c], MemoryGB: 1e6}
		cr.ot = can.Threshold(cfg.Threads+cfg.QueueLen, cr.capacity)
		e.byID[cr.id] = int32(c)
	}
	for ch := range e.owner {
		e.owner[ch] = -1
	}
	for ch, f := range s.First {
		e.at(&e.submitAt, int(f), int32(ch))
	}
	for c := range e.cr {
		if err := e.join(int32(c)); err != nil {
			return nil, err
		}
	}
	for e.step = 0; e.step < cfg.Steps; e.step++ {
		e.now = Start.Add(time.Duration(e.step) * Step)
		if err := e.churn(); err != nil {
			return nil, err
		}
		e.finishes()
		e.expiries()
		e.submits()
		e.startAll()
		if e.strat.Due(e.now) {
			e.strat.Reassign(e.now)
			e.setIntervals()
			e.res.Reassignments++
		}
		e.sample()
		e.recycle()
	}
	e.finish()
	return e.res, nil
}

func (e *engine) setIntervals() {
	iv := e.strat.Intervals()
	e.cur = make([]float64, len(iv))
	for p, d := range iv {
		e.cur[p] = float64(d) / float64(Step)
	}
}

// at appends v to the bucket of step s, ignoring steps past the end. An
// empty bucket takes a processed one's array from the pool, which keeps
// the garbage collector out of the inner loop.
func (e *engine) at(b *[][]int32, s int, v int32) {
	if s >= e.cfg.Steps {
		return
	}
	if (*b)[s] == nil {
		if n := len(e.poolI); n > 0 {
			(*b)[s], e.poolI = e.poolI[n-1], e.poolI[:n-1]
		}
	}
	(*b)[s] = append((*b)[s], v)
}

func (e *engine) atRef(b *[][]ref, s int, v ref) {
	if s >= e.cfg.Steps {
		return
	}
	if (*b)[s] == nil {
		if n := len(e.poolR); n > 0 {
			(*b)[s], e.poolR = e.poolR[n-1], e.poolR[:n-1]
		}
	}
	(*b)[s] = append((*b)[s], v)
}

// recycle returns processed buckets' arrays to the pools.
func (e *engine) recycle() {
	for _, b := range []*[][]int32{&e.submitAt, &e.churnAt} {
		if x := (*b)[e.step]; x != nil {
			e.poolI = append(e.poolI, x[:0])
			(*b)[e.step] = nil
		}
	}
	for _, b := range []*[][]ref{&e.finishAt, &e.expireAt} {
		if x := (*b)[e.step]; x != nil {
			e.poolR = append(e.poolR, x[:0])
			(*b)[e.step] = nil
		}
	}
}

func (e *engine) draw(mean, sd float64) int {
	return max(1, int(math.Round(mean+sd*e.churnR.NormFloat64())))
}

func (e *engine) alloc(ch int32) uint32 {
	if n := len(e.free); n > 0 {
		id := e.free[n-1]
		e.free = e.free[:n-1]
		e.tasks[id].ch = ch
		return id
	}
	e.tasks = append(e.tasks, task{ch: ch})
	return uint32(len(e.tasks) - 1)
}

func (e *engine) release(id uint32) {
	t := &e.tasks[id]
	t.gen++
	t.state = stFree
	e.free = append(e.free, id)
}

func (e *engine) valid(r ref, state uint8) bool {
	t := &e.tasks[r.id]
	return t.gen == r.gen && t.state == state
}

func (e *engine) group(ch int32) *GroupResult { return &e.res.Groups[e.sc.Channels[ch].Group] }

func (e *engine) markDirty(c int32) {
	if !e.cr[c].dirty {
		e.cr[c].dirty = true
		e.dirty = append(e.dirty, c)
	}
}

// submits hands every channel due now to the swarm and schedules its next
// submission one interval later.
func (e *engine) submits() {
	for _, ch := range e.submitAt[e.step] {
		e.strat.Submitted(int(ch), e.now)
		e.group(ch).Submitted++
		iv := max(1, int(math.Round(float64(e.strat.Interval(int(ch)))/float64(Step))))
		e.at(&e.submitAt, e.step+iv, ch)
		e.insert(ch, e.step+iv)
	}
}

// insert routes a new task to the owner of its host's point and applies
// load balancing on insert there.
func (e *engine) insert(ch int32, deadline int) {
	if e.ov.Len() == 0 {
		e.strat.Failed(int(ch), mr.FailRefused, e.now)
		e.group(ch).Refused++
		return
	}
	cur := e.ownerOf(ch)
	pages := int64(e.sc.Pages[ch])
	for ttl := e.cfg.TTL; ; {
		c := &e.cr[cur]
		self := can.NewLoad(c.pieces+1, c.pages+pages, c.capacity)
		if ttl <= 0 || !(self.RTL > c.ot) {
			break
		}
		d := can.DecideInsert(self, c.ot, e.neighbours(cur), ttl)
		if d.Accept {
			break
		}
		cur, ttl = e.byID[d.To], d.TTL
	}
	id := e.alloc(ch)
	e.tasks[id].deadline = int32(deadline)
	e.enqueue(cur, id)
	e.atRef(&e.expireAt, deadline, ref{id, e.tasks[id].gen})
}

// ownerOf returns the crawler whose zone holds channel ch's host point.
// The overlay's answer is cached per channel and checked against the
// cached owner's zones, which a tree walk from the root would cost more
// than.
func (e *engine) ownerOf(ch int32) int32 {
	pt := e.sc.World.HostPoint[ch]
	if c := e.owner[ch]; c >= 0 && e.cr[c].online {
		cr := &e.cr[c]
		if cr.oldZones {
			cr.zones, cr.oldZones = e.ov.Zones(cr.id), false
		}
		for _, z := range e.cr[c].zones {
			if z.Contains(pt) {
				return c
			}
		}
	}
	id, _ := e.ov.Owner(pt)
	c := e.byID[id]
	e.owner[ch] = c
	return c
}

// refresh re-reads crawler c's neighbours after an overlay change that
// touched them.
func (e *engine) refresh(c int32) {
	cr := &e.cr[c]
	if !cr.stale {
		return
	}
	cr.nbrs = cr.nbrs[:0]
	for _, id := range e.ov.Neighbours(cr.id) {
		cr.nbrs = append(cr.nbrs, e.byID[id])
	}
	cr.stale = false
}

// touch marks the crawlers whose neighbour tables an overlay change can
// alter: the peers named and all their neighbours; and the named peers'
// zones.
func (e *engine) touch(ids ...can.PeerID) {
	for _, id := range ids {
		if c, ok := e.byID[id]; ok {
			e.cr[c].stale, e.cr[c].oldZones = true, true
		}
		for _, n := range e.ov.Neighbours(id) {
			e.cr[e.byID[n]].stale = true
		}
	}
}

// neighbours returns c's neighbour table with their current loads, as
// fresh heartbeats would report them.
func (e *engine) neighbours(c int32) []can.NeighbourInfo {
	cr := &e.cr[c]
	e.refresh(c)
	e.nbrBuf = e.nbrBuf[:0]
	for _, n := range cr.nbrs {
		o := &e.cr[n]
		e.nbrBuf = append(e.nbrBuf, can.NeighbourInfo{ID: o.id, Load: can.NewLoad(o.pieces, o.pages, o.capacity)})
	}
	return e.nbrBuf
}

func (e *engine) enqueue(c int32, id uint32) {
	t := &e.tasks[id]
	t.state, t.crawler = stQueued, c
	cr := &e.cr[c]
	cr.queue = append(cr.queue, ref{id, t.gen})
	cr.queued++
	cr.pieces++
	cr.pages += int64(e.sc.Pages[t.ch])
	e.queued++
	e.markDirty(c)
}

// drop removes a task from its crawler's counts.
func (e *engine) drop(id uint32) {
	t := &e.tasks[id]
	cr := &e.cr[t.crawler]
	cr.pieces--
	cr.pages -= int64(e.sc.Pages[t.ch])
	switch t.state {
	case stQueued:
		cr.queued--
		e.queued--
	case stRunning:
		for i, r := range cr.running {
			if r == id {
				cr.running[i] = cr.running[len(cr.running)-1]
				cr.running = cr.running[:len(cr.running)-1]
				break
			}
		}
		e.running--
		e.rate -= t.rate
	}
	e.markDirty(t.crawler)
}

func (e *engine) finishes() {
	for _, r := range e.finishAt[e.step] {
		if !e.valid(r, stRunning) {
			continue
		}
		ch := e.tasks[r.id].ch
		e.drop(r.id)
		e.release(r.id)
		e.strat.Succeeded(int(ch), e.now)
		e.group(ch).Updates++
		e.updates[ch]++
	}
}

func (e *engine) expiries() {
	for _, r := range e.expireAt[e.step] {
		if e.valid(r, stQueued) {
			e.expire(r.id)
		}
	}
}

func (e *engine) expire(id uint32) {
	ch := e.tasks[id].ch
	e.drop(id)
	e.release(id)
	e.strat.Failed(int(ch), mr.FailExpired, e.now)
	e.group(ch).Expired++
}

// startAll fills the free threads of every crawler whose state changed.
func (e *engine) startAll() {
	for _, c := range e.dirty {
		cr := &e.cr[c]
		cr.dirty = false
		for len(cr.running) < e.cfg.Threads && cr.queued > 0 {
			r := cr.queue[cr.head]
			cr.head++
			if !e.valid(r, stQueued) {
				continue
			}
			if int(e.tasks[r.id].deadline) < e.step {
				e.expire(r.id)
				cr.dirty = false // expire marked it; this loop is already on it
				continue
			}
			e.start(c, r)
		}
		if cr.queued == 0 {
			cr.queue, cr.head = cr.queue[:0], 0
		} else if cr.head > 64 && cr.head > len(cr.queue)/2 {
			n := copy(cr.queue, cr.queue[cr.head:])
			cr.queue, cr.head = cr.queue[:n], 0
		}
	}
	e.dirty = e.dirty[:0]
}

// start runs a task on crawler c. Its download time is fixed now (paper
// 000 §4): pages × (RTT + page / (bandwidth / threads) + politeness wait).
func (e *engine) start(c int32, r ref) {
	t := &e.tasks[r.id]
	cr := &e.cr[c]
	pages := float64(e.sc.Pages[t.ch])
	bits := e.cfg.PageBytes * 8
	perThread := cr.capacity.BWDownload * 1e6 / float64(e.cfg.Threads)
	perPage := e.sc.World.RTT(int(c), int(t.ch))/1000 + bits/perThread + e.cfg.PoliteSeconds
	secs := pages * perPage
	t.state = stRunning
	t.rate = pages * bits / secs
	cr.queued--
	cr.running = append(cr.running, r.id)
	e.queued--
	e.running++
	e.rate += t.rate
	steps := max(1, int(math.Ceil(secs/Step.Seconds())))
	e.atRef(&e.finishAt, e.step+steps, r)
}

func (e *engine) churn() error {
	for _, c := range e.churnAt[e.step] {
		var err error
		if e.cr[c].online {
			err = e.depart(c)
		} else {
			err = e.join(c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *engine) join(c int32) error {
	cr := &e.cr[c]
	ho, err := e.ov.Join(cr.id, e.sc.World.CrawlerPoint[c])
	if err != nil {
		return fmt.Errorf("recrawl sim step %d: %w", e.step, err)
	}
	// The new peer's neighbours were all the old owner's, or the old owner.
	e.touch(cr.id, ho.From)
	cr.online = true
	e.online++
	e.at(&e.churnAt, e.step+e.draw(e.cfg.LifetimeMean, e.cfg.LifetimeSD), c)
	return nil
}

// depart takes crawler c offline: with notice its tasks migrate to the
// peer that takes over the zone holding their host (else the first heir);
// without, they are lost.
func (e *engine) depart(c int32) error {
	cr := &e.cr[c]
	graceful := e.churnR.Float64() < e.cfg.GracefulShare
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
	var (
		hos []can.Handover
		err error
	)
	// Heirs are among the departing peer's neighbours, and their new
	// neighbours were its neighbours: marking those covers every change.
	e.touch(cr.id)
	defer func() {
		for _, h := range hos {
			e.cr[e.byID[h.To]].oldZones = true
		}
	}()
	if graceful {
		hos, err = e.ov.Leave(cr.id)
	} else {
		hos, err = e.ov.Crash(cr.id)
	}
	if err != nil {
		return fmt.Errorf("recrawl sim step %d: %w", e.step, err)
	}
	cr.online = false
	e.online--
	e.at(&e.churnAt, e.step+e.draw(e.cfg.RejoinMean, e.cfg.RejoinSD), c)
	for _, id := range held {
		ch := e.tasks[id].ch
		if !graceful || len(hos) == 0 {
			e.release(id)
			e.strat.Failed(int(ch), mr.FailLost, e.now)
			e.group(ch).Lost++
			continue
		}
		to := hos[0].To
		for _, h := range hos {
			if h.Zone.Contains(e.sc.World.HostPoint[ch]) {
				to = h.To
				break
			}
		}
		e.tasks[id].gen++ // old refs (finish events, this queue) go stale
		e.enqueue(e.byID[to], id)
		if d := int(e.tasks[id].deadline); d >= e.step {
			e.atRef(&e.expireAt, d, ref{id, e.tasks[id].gen})
		}
		e.res.Migrated++
	}
	return nil
}

func (e *engine) sample() {
	for p, v := range e.cur {
		e.intervalSum[p] += v
	}
	e.acc.Online += float64(e.online)
	e.acc.Queued += float64(e.queued)
	e.acc.Running += float64(e.running)
	e.acc.Throughput += e.rate / 1e6
	e.accN++
	if e.accN == e.cfg.Sample || e.step == e.cfg.Steps-1 {
		n := float64(e.accN)
		e.res.Series = append(e.res.Series, Sample{
			Step:       e.step + 1,
			Online:     e.acc.Online / n,
			Queued:     e.acc.Queued / n,
			Running:    e.acc.Running / n,
			Throughput: e.acc.Throughput / n,
			Intervals:  append([]float64(nil), e.cur...),
		})
		e.acc, e.accN = Sample{}, 0
	}
}

func (e *engine) finish() {
	r := e.res
	for p := range r.Groups {
		g := &r.Groups[p]
		g.MeanInterval = e.intervalSum[p] / float64(e.cfg.Steps)
		r.Submitted += g.Submitted
		r.Updates += g.Updates
		r.Expired += g.Expired
		r.Refused += g.Refused
		r.Lost += g.Lost
	}
	span := time.Duration(e.cfg.Steps) * Step
	r.Quality, r.WeightedQuality = mr.MeanQuality(e.updates, e.sc.Channels, len(r.Groups), span)
}
