package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// driftMaxError is the Vivaldi error (0 certain … 1.5 unknown) above which
// a coordinate is too young to move for: a new peer's coordinate starts at
// the origin and would send every newcomer to the same point.
const driftMaxError = 0.5

// firstMoveSamples is how many RTT samples a node's coordinate rests on
// before its first move: about ten heartbeat rounds, with the wide sample
// (sampleWide) beside the neighbours.
// Vivaldi's error is below driftMaxError after a few rounds, but in a
// swarm of peers that started together the coordinates keep spreading out
// for some rounds after that; a peer that moved then would find its
// coordinate far from its zone later, yet within the zone's diagonal, and
// stay there. The coordinate's Vivaldi step calms at the same count
// (coord.CalmAfter), so the coordinate then wanders less from the point
// the node moved to.
const firstMoveSamples = coord.CalmAfter

// awaitSamples is how many samples a node with Config.AwaitBounds waits
// for trained bounds before its first move uses the operator's.
const awaitSamples = 3 * firstMoveSamples

// moveTurns is how many turns moves are spread over. Peers that start
// together become confident within a round or two of each other, and
// trained bounds reach all members within one renewal; moving all at
// once, each would hand its zone to a neighbour that is leaving too. Each
// turn lasts two heartbeat intervals, and a peer moves only in the first
// half of its own, so moves in different turns are at least one interval
// apart. Eight turns (32 s at the default interval) get every client of
// the swarm benchmark moved by the time its hosts come. They were once
// taken back to sixteen after a test run left two targets without a route
// for minutes once three of six peers had moved within 6 s; concurrent
// moves were then found to leave overlaps and unknown neighbours (gaps.go
// repairs both) and areas nobody held (a heartbeat crossing a handover,
// fixed in onHeartbeat), and with those fixed the process-swarm tests
// pass with eight beside a CPU hog (docs/overlay.md).
const moveTurns = 8

// Drifted reports whether the node should leave and rejoin at its mapped
// coordinate, and that point. A node joins first at Config.Point (the
// client's is a hash of its peer ID, since no coordinate is known before
// it has heartbeats to measure), so once Vivaldi's error is at most
// driftMaxError and the coordinate rests on firstMoveSamples samples (and,
// with Config.AwaitBounds, trained bounds have come) it moves whenever the
// mapped point lies outside its zones; a node placed by its coordinate
// stays until the mapped point lies further than its zone's diagonal from
// the zone's centre (with several zones, from each of them; DESIGN §4),
// so a coordinate that wobbles across a zone's face does not make it
// rejoin again and again. Every move waits for the node's turn
// (moveTurns). Without bounds, or while Vivaldi's error is above
// driftMaxError, it never drifts.
func (n *Node) Drifted() (bool, []float64) { return n.driftedAt(time.Now()) }

func (n *Node) driftedAt(now time.Time) (bool, []float64) {
	c := n.viv.Coord()
	if c.Error > driftMaxError {
		return false, nil
	}
	samples := n.viv.Samples()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.bounds == nil {
		return false, nil
	}
	p := n.bounds.Map(c)
	if !n.placed && (samples < firstMoveSamples || n.cfg.AwaitBounds && n.boundsEpoch == 0 && samples < awaitSamples) {
		return false, nil
	}
	if !n.moveTurn(now) || !n.strayedLocked(p) {
		return false, nil
	}
	return true, p
}

// strayedLocked reports whether point p lies far enough from the node's
// zones to move for (Drifted) and nothing holds the node where it is: it
// holds zones, is not leaving, and awaits no takeover next to them. n.mu
// must be held.
func (n *Node) strayedLocked(p can.Point) bool {
	if len(n.zones) == 0 || n.leaving {
		return false
	}
	for _, z := range n.zones {
		if n.placed && !z.Drifted(p) || !n.placed && z.Contains(p) {
			return false
		}
	}
	return !n.awaitsTakeoverLocked()
}

// awaitsTakeoverLocked reports whether part of a dead neighbour's zones
// next to ours is claimed by no one we know. A node that leaves takes
// nothing over, and the neighbour it hands its zones to may not know that
// peer died, so a part only this node was waiting for would be held by
// nobody: it is taken within this node's rank, or claimed by another, and
// the node moves after that. n.mu must be held.
func (n *Node) awaitsTakeoverLocked() bool {
	for id, d := range n.dead {
		if abutsAny(n.unclaimedLocked(id, d, false), n.zones) {
			return true
		}
	}
	return false
}

// moveTurn reports whether now lies in the first half of the node's turn
// to move. The turn comes from the point the node first joined at, which
// the client hashes from its peer ID, so turns spread evenly: the first
// moves of a fresh overlay, and the moves trained bounds cause, come a few
// at a time.
func (n *Node) moveTurn(now time.Time) bool {
	hb := n.cfg.Heartbeat
	if hb <= 0 || len(n.first) == 0 {
		return true
	}
	turn := int64(n.first[0]*moveTurns) % moveTurns
	half := now.UnixNano() / int64(hb) // heartbeat intervals since the epoch
	return half%(2*moveTurns) == 2*turn
}

// moveLookup is the answer to the lookup for a move's point p, made
// under bounds numbered epoch.
type moveLookup struct {
	p     can.Point
	epoch uint64
	res   lookupResult
}

// checkDrift is Serve's step for moves. When the node drifted, it looks up
// the owner of its mapped point off the loop, in wg, and pokes Serve once
// the answer is in; the round after that moves on it. The lookup asks peers
// one after another and waits up to two heartbeat intervals on each: in
// the loop, a few peers that do not answer would hold up the node's own
// heartbeats, dead checks and takeovers for as long. The move itself, a
// leave and a join, stays in the loop, between the rounds whose zones it
// changes.
func (n *Node) checkDrift(ctx context.Context, wg *sync.WaitGroup) error {
	// The bounds' number is read before Drifted maps the point: bounds
	// that come between map it anew, and moveOn then finds the number
	// changed.
	n.mu.Lock()
	found, epoch := n.found, n.boundsEpoch
	n.found = nil
	n.mu.Unlock()
	if found != nil {
		return n.moveOn(ctx, found)
	}
	drifted, p := n.Drifted()
	if !drifted || !n.seeking.CompareAndSwap(false, true) {
		return nil
	}
	wg.Go(func() {
		defer n.seeking.Store(false)
		res := n.lookup(ctx, p)
		n.mu.Lock()
		n.found = &moveLookup{p: p, epoch: epoch, res: res}
		n.mu.Unlock()
		n.poke()
	})
	return nil
}

// moveOn leaves and rejoins at the looked-up point through its owner, if
// the lookup found one and the node still strays from the point: its
// zones may have changed while the lookup ran (a takeover, a split, a
// settlement), and new bounds map it elsewhere. Leave only for a point
// whose owner answers for it: a point in an area nobody holds (a dead
// peer's, before an heir takes it) or that no route reaches yet would
// leave the node holding nothing, its zones handed away and its joins
// refused for rounds. The owner found is asked first, so the join needs
// no route. Without an owner the node moves at a later turn.
func (n *Node) moveOn(ctx context.Context, found *moveLookup) error {
	p := found.p
	if found.res.owner == nil {
		n.log.Debug("No owner found for the mapped point; moving at a later turn", "point", fmt.Sprint(p), "asked", found.res.asked, "err", found.res.err)
		return nil
	}
	n.mu.Lock()
	if found.epoch != n.boundsEpoch || !n.strayedLocked(p) {
		n.mu.Unlock()
		return nil
	}
	var entries []peer.AddrInfo
	for id, nb := range n.nbrs {
		if nb.direct && nb.misses == 0 {
			entries = append(entries, peer.AddrInfo{ID: id, Addrs: n.h.Peerstore().Addrs(id)})
		}
	}
	n.mu.Unlock()
	if len(entries) == 0 {
		return nil // alone: nowhere to rejoin through, and nothing to gain
	}
	owner, addrs := peerAddrs(found.res.owner)
	entries = slices.DeleteFunc(entries, func(e peer.AddrInfo) bool { return e.ID == owner })
	entries = append([]peer.AddrInfo{{ID: owner, Addrs: addrs}}, entries...)
	n.log.Info("Coordinate drifted from the zone; rejoining", "point", fmt.Sprint(p), "owner", owner.String())
	if err := n.leave(ctx, false); err != nil {
		return fmt.Errorf("rejoin: %w", err)
	}
	n.mu.Lock()
	n.leaving = false
	n.farewell = nil
	n.zones = nil
	for id := range n.nbrs {
		n.removeLocked(id)
	}
	n.cfg.Point = p
	n.placed = true
	n.stats.Moves++
	n.mu.Unlock()
	var errs []error
	for _, e := range entries[:min(len(entries), 3)] {
		err := n.Join(ctx, e)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	// Zone-less now: checkLost retries through the peers heard from last.
	n.mu.Lock()
	n.lost = time.Now()
	n.mu.Unlock()
	return fmt.Errorf("rejoin: %w", errors.Join(errs...))
}

// SetBounds adopts bounds numbered epoch, the manager's training of the
// CAN space's box, when they are newer than the node's; it reports
// whether it did. Members whose mapped point then lies too far from their
// zone move to it, in their turns.
func (n *Node) SetBounds(epoch uint64, b coord.Bounds) bool {
	if len(b.Lo) != n.cfg.Dim || len(b.Hi) != n.cfg.Dim {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if epoch <= n.boundsEpoch || n.bounds == nil {
		return false
	}
	n.bounds, n.boundsEpoch = &b, epoch
	n.log.Info("CAN space bounds updated", "epoch", epoch)
	return true
}
