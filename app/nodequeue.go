package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/p2p/share"
	"github.com/hivecrawl/hivecrawl/task"
)

// nodeQueue is the overlay's view of the bbolt task queue: verified tasks
// the overlay accepts go through the task manager (which wakes a thread),
// the load comes from the task manager, and a graceful leave drains the
// queue for the peer taking over the zone.
type nodeQueue struct {
	q *queue.Queue
	m *taskmgr.Manager
	// paused, when set, reports whether crawling is paused (the
	// governor): paused threads are not idle ones to share tasks with.
	paused func() bool
	// holding, when set, reports whether no new task may start (the
	// disk near its limits): the queue then takes none either, and the
	// overlay balances them to a neighbour.
	holding func() bool
	// handBack, when set, gives one task back to the manager (Return).
	handBack func(ctx context.Context, env []byte) error
	// floor, when set (network mode), refuses tasks whose policy is
	// under the politeness floor, and the network with them.
	floor *policyFloor
}

var (
	_ node.Queue        = nodeQueue{}
	_ admission.SeenSet = nodeQueue{}
	_ node.Fuller       = nodeQueue{}
	_ share.Queue       = nodeQueue{}
	_ node.Returner     = nodeQueue{}
)

// returnWorkers bounds the tasks given back to the manager at once.
const returnWorkers = 4

// Return gives tasks a leave could not hand to a neighbour back to the
// manager, which issues their hosts again at once.
func (nq nodeQueue) Return(ctx context.Context, envs [][]byte) error {
	if nq.handBack == nil {
		return errors.New("no manager to give tasks back to")
	}
	errs := make([]error, len(envs))
	sem := make(chan struct{}, returnWorkers)
	var wg sync.WaitGroup
	for i, e := range envs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = nq.handBack(ctx, e)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Enqueue queues a task that arrived signed in env, with the proof its
// lease claim will show. A task already known (a resubmission that raced
// a handover, say) is accepted again without a second copy.
func (nq nodeQueue) Enqueue(ctx context.Context, t *task.Task, env, proof []byte) error {
	if nq.floor != nil {
		if err := nq.floor.check(t); err != nil {
			return fmt.Errorf("task %s refused: %w", t.ID, err)
		}
	}
	if nq.holding != nil && nq.holding() {
		return node.ErrQueueFull
	}
	err := nq.m.Submit(env, proof, t)
	switch {
	case err == nil || errors.Is(err, queue.ErrDuplicate):
		return nil
	case errors.Is(err, queue.ErrFull):
		// The overlay balances such a task to a lighter neighbour.
		return node.ErrQueueFull
	}
	return err
}

// Full reports whether the queue holds as many waiting tasks as it may,
// or takes none while starts are held.
func (nq nodeQueue) Full() bool {
	if nq.holding != nil && nq.holding() {
		return true
	}
	n, err := nq.q.Len()
	return err == nil && n >= nq.q.MaxLen()
}

// Load returns the queued and running tasks and their expected pages. A
// read failure counts as no load: the next heartbeat tries again.
func (nq nodeQueue) Load() (int, int64) {
	pieces, pages, err := nq.m.Load()
	if err != nil {
		return 0, 0
	}
	return pieces, pages
}

// Spare returns the tasks waiting for a crawl thread and the threads idle;
// none are idle while crawling is paused or starts are held. A read failure counts as none
// waiting.
func (nq nodeQueue) Spare() (waiting, idle int) {
	waiting, idle, err := nq.m.Spare()
	if err != nil {
		waiting = 0
	}
	if (nq.paused != nil && nq.paused()) || (nq.holding != nil && nq.holding()) {
		idle = 0
	}
	return waiting, idle
}

// Offer takes out of the queue the waiting task that rank ranks highest
// among those that could start now and rank accepts, ties to the one that
// would start last.
func (nq nodeQueue) Offer(_ context.Context, rank func(*task.Task) (float64, bool)) (*task.Task, []byte, error) {
	r, err := nq.m.Offer(func(r *queue.Record) (float64, bool) { return rank(r.Task) })
	if err != nil || r == nil {
		return nil, nil, err
	}
	return r.Task, r.Raw, nil
}

// Settle ends the offer of task id: taken by a neighbour, or back in
// its place.
func (nq nodeQueue) Settle(_ context.Context, id string, taken bool) error {
	if taken {
		return nq.m.Shared(id)
	}
	return nq.m.Unoffer(id)
}

// Drain marks every queued and running task handed over and returns their
// envelopes. The task manager must have stopped.
func (nq nodeQueue) Drain(ctx context.Context) (queued, running [][]byte, err error) {
	rs, qs, err := nq.m.Handover()
	if err != nil {
		return nil, nil, fmt.Errorf("drain task queue: %w", err)
	}
	for _, r := range rs {
		running = append(running, r.Raw)
	}
	for _, r := range qs {
		queued = append(queued, r.Raw)
	}
	return queued, running, nil
}

// Seen records a task the overlay takes on in the queue file's seen set,
// which outlives restarts, and reports whether it was there already.
func (nq nodeQueue) Seen(_ context.Context, id string, expires time.Time) (bool, error) {
	return nq.q.Seen(id, expires, time.Now())
}
