package node

import (
	"context"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Sharer is a Queue that can give a waiting task to a neighbour whose
// crawl threads wait for work. Load balancing on insert places a task
// once, by loads announced before it; where hosts cluster near a few
// peers, their queues still grow while neighbours run dry. Such a peer
// passes the tasks that would start last on to a neighbour with an idle
// thread, as a load-balanced insert: the neighbour's admission checks that
// this peer holds the task's target, as for any balanced insert, so only
// the owner of a target shares its tasks and a task moves one hop at most.
// One crawler per host still holds: a task shared is no longer here, and
// should both copies survive a crash, only one can claim the host's lease.
type Sharer interface {
	// Spare returns the tasks that wait for a crawl thread and the
	// threads that wait for a task. Like Load, it is called with the
	// node's lock held.
	Spare() (waiting, idle int)
	// Offer takes out of the queue the waiting task that would start last
	// among those that could start at once and keep accepts, and returns
	// it with its envelope; a nil task when there is none. The task stays
	// out of the queue until Settle.
	Offer(ctx context.Context, keep func(*task.Task) bool) (*task.Task, []byte, error)
	// Settle ends the offer of task id: taken, the task has left for
	// good; otherwise it goes back to its place in the queue.
	Settle(ctx context.Context, id string, taken bool) error
}

// shareTimeout bounds one offer to a neighbour: a slow neighbour keeps the
// task waiting here meanwhile.
const shareTimeout = 5 * time.Second

// share offers waiting tasks to neighbours that announced idle crawl
// threads, one task per idle thread, each to the idle neighbour whose zone
// lies nearest the task's target (the nearest on the network, as far as
// the CAN tells). It runs after a heartbeat round, with load balancing on
// (Config.MaxPieces), and never twice at once.
func (n *Node) share(ctx context.Context) {
	sh, ok := n.queue.(Sharer)
	if !ok || n.cfg.MaxPieces <= 0 || !n.sharing.CompareAndSwap(false, true) {
		return
	}
	defer n.sharing.Store(false)
	for {
		n.mu.Lock()
		if n.leaving || len(n.zones) == 0 {
			n.mu.Unlock()
			return
		}
		waiting, _ := sh.Spare()
		var takers []can.NeighbourInfo
		for id, nb := range n.nbrs {
			if nb.direct && nb.idle > 0 {
				takers = append(takers, can.NeighbourInfo{ID: can.PeerID(id), Zones: nb.zones})
			}
		}
		zones := slices.Clone(n.zones)
		n.mu.Unlock()
		if waiting == 0 || len(takers) == 0 {
			return
		}
		t, env, err := sh.Offer(ctx, func(t *task.Task) bool {
			target := can.Clamp(t.Target)
			return len(target) == n.cfg.Dim && holds(zones, target)
		})
		if err != nil {
			n.log.Warn("No waiting task taken out to share", "err", err)
			return
		}
		if t == nil {
			return // none of ours could start elsewhere now
		}
		target := can.Clamp(t.Target)
		to := nearest(takers, target)
		taken, err := n.offer(ctx, to, env, target)
		n.mu.Lock()
		if nb, ok := n.nbrs[to]; ok {
			if taken {
				nb.idle-- // until its next heartbeat tells
			} else {
				nb.idle = 0 // refused: not again before it says so
			}
		}
		if taken {
			n.stats.Shared++
		}
		n.mu.Unlock()
		if taken {
			n.noteLeft(t)
		}
		if err != nil {
			n.log.Debug("Task not shared", "task", t.ID, "neighbour", to.String(), "err", err)
		}
		if serr := sh.Settle(ctx, t.ID, taken); serr != nil {
			n.log.Error("Offered task not settled", "task", t.ID, "taken", taken, "err", serr)
			return
		}
		if taken {
			n.log.Debug("Shared a waiting task with an idle neighbour", "task", t.ID, "neighbour", to.String())
		}
	}
}

// offer sends a waiting task to neighbour to as a load-balanced insert
// and reports whether it took the task. Any refusal keeps the task here,
// a neighbour that has seen it (ErrSeen) included, as with balancing.
func (n *Node) offer(ctx context.Context, to peer.ID, env []byte, target can.Point) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, shareTimeout)
	defer cancel()
	resp, err := n.forward(ctx, to, &wire.Insert{Envelope: env, Target: target, Hops: 1, Lbi: true})
	switch {
	case err != nil:
		return false, err
	case !resp.Accepted:
		return false, refusal(resp.Error)
	}
	return true, nil
}

// nearest returns the neighbour whose zones lie nearest target, ties to
// the smaller ID.
func nearest(nbrs []can.NeighbourInfo, target can.Point) peer.ID {
	var (
		best  can.PeerID
		bestD = -1.0
	)
	for _, nb := range nbrs {
		for _, z := range nb.Zones {
			if d := z.Dist2(target); bestD < 0 || d < bestD || (d == bestD && nb.ID < best) {
				best, bestD = nb.ID, d
			}
		}
	}
	return peer.ID(best)
}
