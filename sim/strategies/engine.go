package strategies

import (
	"math"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
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
	capacity can.Capacity
	ot       float64
	queue    []ref // FIFO from head; may hold stale refs
	head     int
	queued   int
	running  []uint32
	pieces   int
	pages    int64
	dirty    bool
}

type engine struct {
	sc       *Scenario
	cfg      Config
	strat    recrawl.Strategy
	sw       *swarm
	owner    []int32 // last known owner of each channel's host point, -1 none
	cr       []crawler
	tasks    []task
	free     []uint32
	submitAt [][]int32
	finishAt [][]ref
	expireAt [][]ref
	dirty    []int32
	nbrBuf   []can.NeighbourInfo
	step     int
	now      time.Time
	res      *Result
	cur      []float64 // groups' intervals in steps
	updates  []int

	queued, running int
	rate            float64 // Σ rate of running tasks, bits/s
	acc             Sample  // running sums of the current window
	accN            int
	intervalSum     []float64
	poolI           [][]int32
	poolR           [][]ref
}

// Run simulates the scenario under strategy k with the given success-rate
// counting rule.
func (s *Scenario) Run(k Kind, counting recrawl.Counting) (*Result, error) {
	rs, err := s.RunAll([]Kind{k}, counting)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// RunAll simulates the scenario under every strategy in kinds, in lockstep
// over one shared swarm (see swarm), the runs' steps in parallel.
func (s *Scenario) RunAll(kinds []Kind, counting recrawl.Counting) ([]*Result, error) {
	sw, err := newSwarm(s)
	if err != nil {
		return nil, err
	}
	es := make([]*engine, len(kinds))
	for i, k := range kinds {
		if es[i], err = s.newEngine(k, counting, sw); err != nil {
			return nil, err
		}
	}
	errs := make([]error, len(es))
	var wg sync.WaitGroup
	for step := range s.Config.Steps {
		if err := sw.advance(step); err != nil {
			return nil, err
		}
		if len(es) == 1 {
			errs[0] = es[0].advance(step)
		} else {
			for i, e := range es {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = e.advance(step)
				}()
			}
			wg.Wait()
		}
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	out := make([]*Result, len(es))
	for i, e := range es {
		e.finish()
		out[i] = e.res
	}
	return out, nil
}

func (s *Scenario) newEngine(k Kind, counting recrawl.Counting, sw *swarm) (*engine, error) {
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
		sw:          sw,
		cr:          make([]crawler, cfg.Crawlers),
		submitAt:    make([][]int32, cfg.Steps),
		finishAt:    make([][]ref, cfg.Steps),
		expireAt:    make([][]ref, cfg.Steps),
		res:         &Result{Kind: k, Counting: counting, Groups: make([]GroupResult, ng)},
		updates:     make([]int, len(s.Channels)),
		intervalSum: make([]float64, ng),
		owner:       make([]int32, len(s.Channels)),
	}
	for ch := range e.owner {
		e.owner[ch] = -1
	}
	e.setIntervals()
	for c := range e.cr {
		cr := &e.cr[c]
		cr.capacity = can.Capacity{BWDownload: s.Bandwidth[c], MemoryGB: 1e6}
		cr.ot = can.Threshold(cfg.Threads+cfg.QueueLen, cr.capacity)
	}
	for ch, f := range s.First {
		e.at(&e.submitAt, int(f), int32(ch))
	}
	return e, nil
}

// advance runs one step after the swarm's churn.
func (e *engine) advance(step int) error {
	e.step = step
	e.now = Start.Add(time.Duration(step) * Step)
	for _, ev := range e.sw.events {
		if !ev.join {
			e.depart(ev)
		}
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
	return nil
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
	for _, b := range []*[][]int32{&e.submitAt} {
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
	if e.sw.online == 0 {
		e.strat.Failed(int(ch), recrawl.FailRefused, e.now)
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
		cur, ttl = e.sw.byID[d.To], d.TTL
	}
	id := e.alloc(ch)
	e.tasks[id].deadline = int32(deadline)
	e.enqueue(cur, id)
	e.atRef(&e.expireAt, deadline, ref{id, e.tasks[id].gen})
}

// ownerOf returns the crawler whose zone holds channel ch's host point.
// The overlay's answer is cached per channel and checked against the
// cached owner's zones, which costs less than a walk from the root.
func (e *engine) ownerOf(ch int32) int32 {
	pt := e.sc.World.HostPoint[ch]
	if c := e.owner[ch]; c >= 0 && e.sw.peers[c].online {
		for _, z := range e.sw.zonesOf(c) {
			if z.Contains(pt) {
				return c
			}
		}
	}
	c := e.sw.owner(pt)
	e.owner[ch] = c
	return c
}

// neighbours returns c's neighbour table with their current loads, as
// fresh heartbeats would report them.
func (e *engine) neighbours(c int32) []can.NeighbourInfo {
	e.nbrBuf = e.nbrBuf[:0]
	for _, n := range e.sw.neighbours(c) {
		o := &e.cr[n]
		e.nbrBuf = append(e.nbrBuf, can.NeighbourInfo{ID: e.sw.peers[n].id, Load: can.NewLoad(o.pieces, o.pages, o.capacity)})
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
	e.strat.Failed(int(ch), recrawl.FailExpired, e.now)
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

// depart handles a crawler's departure: with notice its tasks migrate to
// the peer that took over the zone holding their host (else the first
// heir); without, they are lost.
func (e *engine) depart(ev churnEvent) {
	c := ev.c
	cr := &e.cr[c]
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
	for _, id := range held {
		ch := e.tasks[id].ch
		if !ev.graceful || len(ev.hos) == 0 {
			e.release(id)
			e.strat.Failed(int(ch), recrawl.FailLost, e.now)
			e.group(ch).Lost++
			continue
		}
		to := ev.hos[0].Holder
		for _, h := range ev.hos {
			if h.Zone(e.sw.ov.Dim()).Contains(e.sc.World.HostPoint[ch]) {
				to = h.Holder
				break
			}
		}
		e.tasks[id].gen++ // old refs (finish events, this queue) go stale
		e.enqueue(e.sw.byID[to], id)
		if d := int(e.tasks[id].deadline); d >= e.step {
			e.atRef(&e.expireAt, d, ref{id, e.tasks[id].gen})
		}
		e.res.Migrated++
	}
}
