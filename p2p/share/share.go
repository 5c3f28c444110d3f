// Package share gives a peer's waiting tasks to peers whose crawl threads
// are idle.
//
// Load balancing on insert places a task once, by loads announced before
// it; where hosts cluster near a few peers, their queues still grow while
// neighbours run dry. Such a peer passes the tasks whose hosts it is
// farthest from (by its own measurements; of the rest, those that would
// start last) on to a neighbour with an idle thread; when no neighbour
// has one, to a peer two hops away that a neighbour says has (a cluster's
// neighbours are often as busy as its owner).
//
// A Sharer decides what to give and to whom, and remembers what takers
// refused; the overlay node (p2p/node) tells it who may take and carries
// each offer as a load-balanced insert with the certificate of the zone
// holding the task's target, which the taker's admission checks
// (admission.CheckPath), so only the owner of a target shares its tasks
// and a task moves once. The taker checks that a thread of its own is
// free for it, since the idle threads the sharer heard of may have been
// taken since, and that it is not more than admission.Reach times as far
// from the task's host as the sharer (admission.CheckNear). One crawler
// per host still holds: a task shared is no longer here, and should both
// copies survive a crash, only one can claim the host's lease.
package share

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Queue is a task queue that can give a waiting task away.
type Queue interface {
	// Spare returns the tasks that wait for a crawl thread and the
	// threads that wait for a task. The node calls it with its lock
	// held, as it does Load: it must not call back into the node.
	Spare() (waiting, idle int)
	// Offer takes out of the queue the waiting task that rank ranks
	// highest among those that could start at once and rank accepts,
	// ties to the one that would start last, and returns it with its
	// envelope; a nil task when there is none. The task stays out of the
	// queue until Settle.
	Offer(ctx context.Context, rank func(*task.Task) (float64, bool)) (*task.Task, []byte, error)
	// Settle ends the offer of task id: taken, the task has left for
	// good; otherwise it goes back to its place in the queue.
	Settle(ctx context.Context, id string, taken bool) error
}

// Taker is a peer a waiting task may be shared with.
type Taker struct {
	ID    peer.ID
	Zones []can.Zone // by its certificates
	// RTT is the shortest heartbeat round trip this peer measured to it,
	// 0 when none (peers two hops away are never measured).
	RTT time.Duration
	// Far marks a peer two hops away, for which Relayed is the fewest
	// idle threads the neighbours listing it relayed.
	Far     bool
	Relayed int
}

// Overlay is what a Sharer asks of the overlay node.
type Overlay interface {
	// Takers returns the zones this peer holds and the neighbours that
	// announced idle crawl threads (less those given since); when none
	// has, the peers two hops away that neighbours list, each with the
	// idle threads relayed for it, none included. ok is false while the
	// peer holds no zone or is leaving.
	Takers() (zones []can.Zone, takers []Taker, ok bool)
	// Offer sends waiting task t, whose target is target, to taker to,
	// and reports whether it took it. A refusal wraps the taker's reason
	// (admission.Refusal). The overlay counts what the offer told of a
	// neighbour's idle threads, and keeps a task taken as passed on.
	Offer(ctx context.Context, to Taker, t *task.Task, env []byte, target can.Point) (bool, error)
}

// Sharer gives a peer's waiting tasks away. Create it with New; its
// methods are safe for concurrent use.
type Sharer struct {
	overlay Overlay
	queue   Queue
	hostRTT func(hostPort string) (time.Duration, bool)
	dim     int // the CAN space's
	// heartbeat is the overlay's heartbeat interval.
	heartbeat time.Duration
	log       *slog.Logger

	running atomic.Bool // a Round runs (one at a time)
	// tooFar holds the hosts each taker refused as too far
	// (admission.ErrTooFar), so they are offered elsewhere.
	tooFar *lru.Cache[refusal, struct{}]

	mu sync.Mutex
	// given counts the tasks shared with each peer two hops away since
	// it was last given one, against the idle threads relayed for it.
	given map[peer.ID]gift
}

// New returns a Sharer that gives q's waiting tasks to the takers o
// names, in a CAN space of dim dimensions. hostRTT returns this peer's
// own last measured round trip to a web host (host:port), nil when it
// measures none; heartbeat is the overlay's heartbeat interval.
func New(o Overlay, q Queue, dim int, hostRTT func(hostPort string) (time.Duration, bool), heartbeat time.Duration, log *slog.Logger) (*Sharer, error) {
	tooFar, err := lru.New[refusal, struct{}](refusals)
	if err != nil {
		return nil, fmt.Errorf("new sharer: %w", err)
	}
	if hostRTT == nil {
		hostRTT = func(string) (time.Duration, bool) { return 0, false }
	}
	if log == nil {
		log = slog.Default()
	}
	return &Sharer{overlay: o, queue: q, dim: dim, hostRTT: hostRTT, heartbeat: heartbeat, log: log, tooFar: tooFar, given: map[peer.ID]gift{}}, nil
}

// Timeout bounds one offer to a taker: a slow taker keeps the task
// waiting here meanwhile.
const Timeout = 5 * time.Second

// gift is what this peer shared with a peer two hops away: n tasks since
// at, when its neighbours relayed relayed idle threads for it.
type gift struct {
	n, relayed int
	at         time.Time
}

// stale reports whether gift g no longer counts against a peer whose
// neighbours now relay relayed idle threads for it, at now.
func (g gift) stale(relayed int, now time.Time, heartbeat time.Duration) bool {
	return g.relayed != relayed || now.Sub(g.at) >= hold*heartbeat
}

// hold is how many heartbeat intervals the tasks shared with a peer two
// hops away count against the idle threads relayed for it while that
// count stays the same: the peer's heartbeat tells its neighbour, whose
// next one tells us, and a count that changed has heard of them.
const hold = 5

// refusals bounds the refusals for distance a Sharer remembers.
const refusals = 4096

// refusal is a host a taker refused as too far from it
// (admission.ErrTooFar): its round trip to the host does not change, so
// it is not offered that host's tasks again.
type refusal struct {
	taker peer.ID
	host  string
}

// Round offers waiting tasks to the takers the overlay names, one task per
// idle thread, the farthest first (farness), each to the taker nearest on
// the network (Nearest). The overlay node runs it after each heartbeat
// round; a Round that starts while another runs returns at once.
func (s *Sharer) Round(ctx context.Context) {
	if !s.running.CompareAndSwap(false, true) {
		return
	}
	defer s.running.Store(false)
	for {
		zones, takers, ok := s.overlay.Takers()
		if !ok {
			return
		}
		takers = s.available(takers, time.Now())
		if waiting, _ := s.queue.Spare(); waiting == 0 || len(takers) == 0 {
			return
		}
		t, env, err := s.queue.Offer(ctx, func(t *task.Task) (float64, bool) {
			target := can.Clamp(t.Target)
			if t.Pinned || len(target) != s.dim || !can.Holds(zones, target) || len(s.within(takers, t)) == 0 {
				return 0, false
			}
			return s.farness(t), true
		})
		if err != nil {
			s.log.Warn("No waiting task taken out to share", "err", err)
			return
		}
		if t == nil {
			return // none of ours could start elsewhere now
		}
		to := Nearest(s.within(takers, t), can.Clamp(t.Target))
		oc, cancel := context.WithTimeout(ctx, Timeout)
		taken, err := s.overlay.Offer(oc, to, t, env, can.Clamp(t.Target))
		cancel()
		s.settle(to, t, taken, err)
		if err != nil {
			s.log.Debug("Task not shared", "task", t.ID, "taker", to.ID.String(), "err", err)
		}
		if serr := s.queue.Settle(ctx, t.ID, taken); serr != nil {
			s.log.Error("Offered task not settled", "task", t.ID, "taken", taken, "err", serr)
			return
		}
		if taken {
			s.log.Debug("Shared a waiting task with an idle peer", "task", t.ID, "taker", to.ID.String(), "two_hops", to.Far)
		}
	}
}

// available returns the takers with idle threads left: every neighbour
// the overlay named, or the peers two hops away whose relayed threads
// outnumber the tasks given them since. When the overlay names peers two
// hops away, the gifts whose count is stale are forgotten.
func (s *Sharer) available(takers []Taker, now time.Time) []Taker {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.ContainsFunc(takers, func(k Taker) bool { return !k.Far }) {
		relayed := map[peer.ID]int{}
		for _, k := range takers {
			relayed[k.ID] = k.Relayed
		}
		maps.DeleteFunc(s.given, func(id peer.ID, g gift) bool { return g.stale(relayed[id], now, s.heartbeat) })
	}
	return slices.DeleteFunc(takers, func(k Taker) bool {
		return k.Far && k.Relayed-s.given[k.ID].n <= 0
	})
}

// settle remembers what an offer of task t to taker to told: a host too
// far for it, or, two hops away, a task taken or a refusal (no more
// before its relayed count changes).
func (s *Sharer) settle(to Taker, t *task.Task, taken bool, err error) {
	switch {
	case errors.Is(err, admission.ErrTooFar):
		// Its threads are still idle, for other hosts.
		s.tooFar.Add(refusal{to.ID, t.Lease.Host}, struct{}{})
	case to.Far:
		s.mu.Lock()
		defer s.mu.Unlock()
		g, now := s.given[to.ID], time.Now()
		if g.stale(to.Relayed, now, s.heartbeat) {
			g = gift{relayed: to.Relayed, at: now}
		}
		if taken {
			g.n++
		} else {
			g.n = wire.MaxSlots // refused: not again before its count changes
		}
		s.given[to.ID] = g
	}
}

// farness ranks waiting task t for sharing: this peer's own measured
// round trip to its host, in seconds, and +Inf for a host it has not
// measured (it came here by balancing, not for nearness). The farthest
// goes first: any taker is as near the host as this peer at best, and
// farther by at most the taker's round trip to this peer (the triangle
// inequality), the whole of it for a host next door, so a task whose
// host is near stays to be crawled from near, and one this peer is no
// nearer to than the taker may cost nothing to give away.
func (s *Sharer) farness(t *task.Task) float64 {
	d, ok := s.hostRTT(t.Lease.Host)
	if !ok {
		return math.Inf(1)
	}
	return d.Seconds()
}

// within returns the takers that have not refused the host of task t as
// too far.
func (s *Sharer) within(takers []Taker, t *task.Task) []Taker {
	return slices.DeleteFunc(slices.Clone(takers), func(k Taker) bool {
		return s.tooFar.Contains(refusal{k.ID, t.Lease.Host})
	})
}

// Nearest returns the taker this peer measured nearest: the task's host
// was placed here because this peer measured it nearest, so the taker
// nearest this peer is near the host too, its round trip to the host at
// most its round trip to us plus ours. While volunteers still stand where
// they joined, at hashes of their peer IDs, a neighbour in the CAN space
// is anywhere on the network; a round trip we measured is not, and no
// taker can make itself look nearer than it is. Takers not yet measured
// wait their turn; when none is measured (peers two hops away never
// are), the taker whose zones lie nearest the task's target. Ties go to
// the smaller ID; no takers, the zero Taker.
func Nearest(takers []Taker, target can.Point) Taker {
	var best *Taker
	for i, k := range takers {
		if k.RTT > 0 && (best == nil || k.RTT < best.RTT || (k.RTT == best.RTT && k.ID < best.ID)) {
			best = &takers[i]
		}
	}
	if best != nil {
		return *best
	}
	bestD := -1.0
	for i, k := range takers {
		for _, z := range k.Zones {
			if d := z.Dist2(target); bestD < 0 || d < bestD || (d == bestD && k.ID < best.ID) {
				best, bestD = &takers[i], d
			}
		}
	}
	if best == nil {
		return Taker{}
	}
	return *best
}
