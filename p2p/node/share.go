package node

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
)

// Sharer is a Queue that can give a waiting task to a neighbour whose
// crawl threads wait for work. Load balancing on insert places a task
// once, by loads announced before it; where hosts cluster near a few
// peers, their queues still grow while neighbours run dry. Such a peer
// passes the tasks whose hosts it is farthest from (by its own
// measurements; of the rest, those that would start last) on to a
// neighbour with an idle thread, as a load-balanced insert; when no
// neighbour has one, to a peer two hops away that a neighbour says has
// (a cluster's neighbours are often as busy as its owner). The offer
// carries this peer's certificate of the zone holding the task's
// target, which the taker's admission checks (admission.CheckPath), so
// only the owner of a target shares its tasks and a task moves once; and
// the taker checks that a thread of its own is free for it
// (freeThreadLocked), since the idle threads the sharer heard of may
// have been taken since, and that it is not more than admission.Reach
// times as far from the task's host as the sharer (admission.CheckNear).
// One crawler per host still holds: a task shared is no longer here, and
// should both copies survive a crash, only one can claim the host's
// lease.
type Sharer interface {
	// Spare returns the tasks that wait for a crawl thread and the
	// threads that wait for a task. Like Load, it is called with the
	// node's lock held.
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

// shareTimeout bounds one offer to a neighbour: a slow neighbour keeps the
// task waiting here meanwhile.
const shareTimeout = 5 * time.Second

// farGift is what this node shared with a peer two hops away: n tasks
// since at, when its neighbours relayed relayed idle threads for it.
type farGift struct {
	n, relayed int
	at         time.Time
}

// stale reports whether gift g no longer counts against a peer whose
// neighbours now relay relayed idle threads for it, at now.
func (g farGift) stale(relayed int, now time.Time, heartbeat time.Duration) bool {
	return g.relayed != relayed || now.Sub(g.at) >= farHold*heartbeat
}

// farHold is how many heartbeat intervals the tasks shared with a peer two
// hops away count against the idle threads relayed for it while that
// count stays the same: the peer's heartbeat tells its neighbour, whose
// next one tells us, and a count that changed has heard of them.
const farHold = 5

// share offers waiting tasks to neighbours that announced idle crawl
// threads, one task per idle thread, the farthest first (farness), each
// to the idle neighbour nearest on the network (nearestTaker); with no
// idle neighbour, to the peers two hops away that neighbours relayed
// idle threads for (farTakersLocked). It runs after a heartbeat round,
// with load balancing on (Config.MaxPieces), and never twice at once.
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
		var takers []taker
		for id, nb := range n.nbrs {
			if nb.direct && nb.idle > 0 {
				takers = append(takers, taker{can.NeighbourInfo{ID: can.PeerID(id), Zones: nb.zones}, nb.rtt})
			}
		}
		far := len(takers) == 0
		var relayed map[peer.ID]int
		if far {
			takers, relayed = n.farTakersLocked(time.Now())
		}
		zones := slices.Clone(n.zones)
		n.mu.Unlock()
		if waiting == 0 || len(takers) == 0 {
			return
		}
		t, env, err := sh.Offer(ctx, func(t *task.Task) (float64, bool) {
			target := can.Clamp(t.Target)
			if t.Pinned || len(target) != n.cfg.Dim || !can.Holds(zones, target) || len(n.within(takers, t)) == 0 {
				return 0, false
			}
			return n.farness(t), true
		})
		if err != nil {
			n.log.Warn("No waiting task taken out to share", "err", err)
			return
		}
		if t == nil {
			return // none of ours could start elsewhere now
		}
		target := can.Clamp(t.Target)
		to := nearestTaker(n.within(takers, t), target)
		taken, err := n.offer(ctx, to, t, env, target)
		n.mu.Lock()
		switch nb, ok := n.nbrs[to]; {
		case errors.Is(err, admission.ErrTooFar):
			// Its threads are still idle, for other hosts.
			n.tooFar.Add(farRefusal{to, t.Lease.Host}, struct{}{})
		case far:
			g, now := n.farGiven[to], time.Now()
			if g.stale(relayed[to], now, n.cfg.Heartbeat) {
				g = farGift{relayed: relayed[to], at: now}
			}
			if taken {
				g.n++
			} else {
				g.n = wire.MaxSlots // refused: not again before its count changes
			}
			n.farGiven[to] = g
		case !ok:
		case taken:
			nb.idle-- // until its next heartbeat tells
		default:
			nb.idle = 0 // refused: not again before it says so
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
			n.log.Debug("Shared a waiting task with an idle neighbour", "task", t.ID, "neighbour", to.String(), "two_hops", far)
		}
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
func (n *Node) farness(t *task.Task) float64 {
	d, ok := n.hostRTT(t)
	if !ok {
		return math.Inf(1)
	}
	return d.Seconds()
}

// hostRTT returns this peer's own last measured round trip to the host of
// task t (Config.HostRTT), false when it has none.
func (n *Node) hostRTT(t *task.Task) (time.Duration, bool) {
	if n.cfg.HostRTT == nil {
		return 0, false
	}
	return n.cfg.HostRTT(t.Lease.Host)
}

// farRefusals bounds the refusals for distance share remembers.
const farRefusals = 4096

// farRefusal is a host a taker refused as too far from it (admission.ErrTooFar):
// its round trip to the host does not change, so it is not offered that
// host's tasks again.
type farRefusal struct {
	taker peer.ID
	host  string
}

// within returns the takers that have not refused the host of task t as
// too far.
func (n *Node) within(takers []taker, t *task.Task) []taker {
	return slices.DeleteFunc(slices.Clone(takers), func(k taker) bool {
		return n.tooFar.Contains(farRefusal{peer.ID(k.ID), t.Lease.Host})
	})
}

// farTakersLocked returns the peers two hops away with idle crawl threads
// as our direct neighbours last relayed them (the fewest, where several
// relay one), less the tasks shared with each since (farGift), with the
// counts relayed, and adds their addresses to the peerstore to reach
// them. A peer that heartbeats us speaks for itself and is left out; so
// are peers whose certificates we do not hold. n.mu must be held.
func (n *Node) farTakersLocked(now time.Time) ([]taker, map[peer.ID]int) {
	relayed := map[peer.ID]int{}
	zones := map[peer.ID][]can.Zone{}
	for _, nb := range n.nbrs {
		if !nb.direct {
			continue
		}
		for _, p := range nb.nbrs {
			id, err := peer.IDFromBytes(p.Id)
			if err != nil || id == n.h.ID() {
				continue
			}
			if own, ok := n.nbrs[id]; ok && own.direct {
				continue
			}
			k := int(p.GetLoad().GetIdle())
			if prev, ok := relayed[id]; ok {
				relayed[id] = min(prev, k)
				continue
			}
			zs := zonecert.Zones(n.book.HeldBy(id, now), n.cfg.Dim)
			if len(zs) == 0 {
				continue // no certificate of its: it holds nothing we know
			}
			relayed[id], zones[id] = k, zs
			_, addrs := p.Decode()
			n.h.Peerstore().AddAddrs(id, addrs, peerstore.RecentlyConnectedAddrTTL)
		}
	}
	maps.DeleteFunc(n.farGiven, func(id peer.ID, g farGift) bool { return g.stale(relayed[id], now, n.cfg.Heartbeat) })
	var out []taker
	for id, k := range relayed {
		if k-n.farGiven[id].n > 0 {
			out = append(out, taker{NeighbourInfo: can.NeighbourInfo{ID: can.PeerID(id), Zones: zones[id]}})
		}
	}
	return out, relayed
}

// freeThreadLocked reports whether a crawl thread here is free for one
// more task: more idle threads than tasks waiting for one. A peer is the
// one authority on its own threads; what a sharer knows of them is a
// heartbeat old, or two hops away older still, so a taker checks it
// before taking a shared task (Insert.Share). n.mu must be held.
func (n *Node) freeThreadLocked() bool {
	sh, ok := n.queue.(Sharer)
	if !ok {
		return false
	}
	waiting, idle := sh.Spare()
	return waiting < idle
}

// offer sends a waiting task to neighbour to as a load-balanced insert
// marked as a share, and reports whether it took the task. Any refusal keeps the task here,
// a neighbour that has seen it (admission.ErrSeen) included, as with balancing.
func (n *Node) offer(ctx context.Context, to peer.ID, t *task.Task, env []byte, target can.Point) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, shareTimeout)
	defer cancel()
	n.mu.Lock()
	c, ok := n.ownCertLocked(target)
	n.mu.Unlock()
	if !ok {
		return false, fmt.Errorf("share: this peer no longer holds %v", target)
	}
	cert, err := c.MarshalBinary()
	if err != nil {
		return false, fmt.Errorf("share: %w", err)
	}
	proof, err := n.pass(zonecert.OwnerProof(c), t, to)
	if err != nil {
		return false, fmt.Errorf("share: %w", err)
	}
	var rttUs uint32
	if d, ok := n.hostRTT(t); ok {
		rttUs = uint32(min(max(d.Microseconds(), 1), math.MaxUint32))
	}
	resp, err := n.forward(ctx, to, &wire.Insert{Envelope: env, Target: target, Hops: 1, Lbi: true, Share: true, Path: [][]byte{cert}, Proof: proof, HostRttUs: rttUs})
	switch {
	case err != nil:
		return false, err
	case !resp.Accepted:
		return false, refusal(resp.Error)
	}
	return true, nil
}

// taker is a peer a waiting task may be shared with, with the shortest
// heartbeat round trip this peer measured to it (0 when none).
type taker struct {
	can.NeighbourInfo
	rtt time.Duration
}

// nearestTaker returns the taker this peer measured nearest: the task's
// host was placed here because this peer measured it nearest, so the
// taker nearest this peer is near the host too, its round trip to the
// host at most its round trip to us plus ours. While volunteers still
// stand where they joined, at hashes of their peer IDs, a neighbour in
// the CAN space is anywhere on the network; a round trip we measured is
// not, and no taker can make itself look nearer than it is. Takers not
// yet measured wait their turn; when none is measured (peers two hops
// away never are), the taker whose zones lie nearest the task's target.
// Ties go to the smaller ID.
func nearestTaker(takers []taker, target can.Point) peer.ID {
	var best *taker
	for i, t := range takers {
		if t.rtt > 0 && (best == nil || t.rtt < best.rtt || (t.rtt == best.rtt && t.ID < best.ID)) {
			best = &takers[i]
		}
	}
	if best == nil {
		return nearest(takers, target)
	}
	return peer.ID(best.ID)
}

// nearest returns the taker whose zones lie nearest target, ties to the
// smaller ID.
func nearest(nbrs []taker, target can.Point) peer.ID {
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
