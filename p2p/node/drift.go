package node

import (
	"context"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// firstMoveSamples is how many RTT samples a node's coordinate rests on
// before its first move: about ten heartbeat rounds, with the wide sample
// (sampleWide) beside the neighbours.
// Vivaldi's error is at most coord.SettledError after a few rounds, but in a
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

// Drifted reports whether the node should move to its mapped coordinate,
// and that point. A node joins first at Config.Point (the client's is a
// hash of its peer ID, since no coordinate is known before it has
// heartbeats to measure), so once its coordinate is settled (Vivaldi's
// error at most coord.SettledError: a new peer's coordinate starts at the
// origin and would send every newcomer to the same point) and rests on
// firstMoveSamples samples (and, with Config.AwaitBounds, trained bounds
// have come) it moves whenever the mapped point lies outside its zones; a node placed by its coordinate
// stays until the mapped point lies further than its zone's diagonal from
// the zone's centre (with several zones, from each of them; design.md §4),
// so a coordinate that wobbles across a zone's face does not make it move
// again and again. Without bounds, or while its coordinate is unsettled,
// it never drifts.
func (n *Node) Drifted() (bool, []float64) { return n.driftedAt(time.Now()) }

func (n *Node) driftedAt(now time.Time) (bool, []float64) {
	c := n.viv.Coord()
	if c.Error > coord.SettledError {
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
	if !n.strayedLocked(p) {
		return false, nil
	}
	return true, p
}

// strayedLocked reports whether point p lies far enough from the node's
// zones to move for (Drifted) and the node is a member holding zones, not
// leaving. n.mu must be held.
func (n *Node) strayedLocked(p can.Point) bool {
	if len(n.zones) == 0 || n.leaving || !n.member {
		return false
	}
	for _, z := range n.zones {
		if n.placed && !z.Drifted(p) || !n.placed && z.Contains(p) {
			return false
		}
	}
	return true
}

// checkDrift is manage's step for moves: a node that drifted asks the
// manager to move it to its mapped point, one transaction that gives its
// zones to their heirs and splits the zone holding the point. The node
// keeps its tasks: its crawler may be running them, and handing a running
// task over would have two peers crawl one host at once; each finishes
// under its own lease.
func (n *Node) checkDrift(ctx context.Context) error {
	drifted, p := n.Drifted()
	if !drifted {
		return nil
	}
	n.log.Info("Coordinate drifted from the zone; moving", "point", fmt.Sprint(p))
	if err := n.ask(ctx, zonecert.Request{Op: zonecert.OpMove, Point: p}); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cfg.Point, n.elsewhere = p, nil
	n.placed = true
	n.renewed = time.Now()
	n.stats.Moves++
	n.poke()
	return nil
}

// SetBounds adopts bounds numbered epoch, the manager's training of the
// CAN space's box, when they are newer than the node's; it reports
// whether it did. Members whose mapped point then lies too far from their
// zone move to it, each by one Move request to the manager (manage.go).
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
