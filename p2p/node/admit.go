package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// A node applies the admission rules (p2p/admission) where it would queue
// a task or balance it onward as its target's owner. A handed-over task is
// checked for its lease, issue time and seen before, not for its target:
// the heir takes the zone. Intermediate peers that only route an insert
// check nothing. Only a task that passes every other rule is recorded as
// seen, just before it is queued or balanced onward (a crash in between
// leaves it refused next time, never queued twice).

// checkPath applies admission.CheckPath to the path of certificates a
// load-balanced insert from peer from carries, with this node's book.
func (n *Node) checkPath(raw [][]byte, target can.Point, from peer.ID) error {
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := admission.CheckPath(n.book, raw, target, n.cfg.Dim, n.h.ID(), from, now); err != nil {
		return err
	}
	n.refreshLocked(now)
	return nil
}

// claim is this node's claim on the lease of task t, aimed at target.
func (n *Node) claim(t *task.Task, target can.Point) zonecert.Claim {
	return zonecert.Claim{Task: t.ID, Epoch: t.Lease.Epoch, Target: target, Issued: t.Issued, Pinned: t.Pinned, Claimer: n.h.ID()}
}

// admit opens an insert's task where it would be queued or balanced onward
// and applies the admission rules; lbiFrom is the peer a load-balanced
// insert came from with its path of certificates and the proof that this
// node may claim the task, "" when target lies in our zones. A task
// admitted is recorded as seen.
func (n *Node) admit(ctx context.Context, env []byte, target can.Point, lbiFrom peer.ID, path [][]byte, proof []byte, sharerRTT time.Duration) (*task.Task, error) {
	t, err := envelope.Open(env, n.cfg.Manager)
	if err != nil {
		n.count(&n.stats.Refused, 1)
		kind := "invalid"
		for _, e := range []error{envelope.ErrUnsigned, envelope.ErrForged, envelope.ErrAltered} {
			if errors.Is(err, e) {
				kind = e.Error()
			}
		}
		n.log.Info("Refused a task that failed verification", "reason", kind)
		return nil, fmt.Errorf("task refused: %w", err)
	}
	err = admission.CheckLease(t, time.Now())
	if err == nil {
		err = admission.CheckTarget(t, target, n.cfg.Dim)
	}
	if err == nil && lbiFrom != "" {
		if perr := n.checkPath(path, target, lbiFrom); perr != nil {
			err = fmt.Errorf("task %s: %w", t.ID, perr)
		} else if perr := admission.CheckProof(proof, n.cfg.Manager, n.claim(t, target)); perr != nil {
			err = fmt.Errorf("task %s: %w", t.ID, perr)
		}
	}
	if err == nil {
		here, measured := n.hostRTT(t)
		err = admission.CheckNear(t, here, measured, sharerRTT)
	}
	if err == nil {
		err = admission.Record(ctx, n.seen, t)
	}
	if err != nil {
		n.refused(t, lbiFrom, err)
		return nil, fmt.Errorf("task refused: %w", err)
	}
	return t, nil
}

// admitHandedOver applies the admission rules that hold for a task a
// leaving neighbour hands over with its zone: the lease and issue time,
// and seen before. Its target is not checked: the heir takes the zone.
// A task seen here because this node balanced or shared it to that
// neighbour comes back: the neighbour is going, and without it the task
// would wait for the manager to re-issue its host.
func (n *Node) admitHandedOver(ctx context.Context, t *task.Task, from peer.ID) error {
	err := admission.CheckLease(t, time.Now())
	if err == nil {
		err = admission.Record(ctx, n.seen, t)
	}
	if errors.Is(err, admission.ErrSeen) && n.takeBack(t) {
		n.log.Debug("A task this peer passed on came back with a zone", "task", t.ID, "from", from)
		return nil
	}
	if err != nil {
		n.refused(t, from, err)
	}
	return err
}

// noteLeft records that this node passed admitted task t on to a
// neighbour (balanced or shared), so that t may come back once. Heartbeat
// rounds forget it when its lease has ended.
func (n *Node) noteLeft(t *task.Task) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.left[admission.Key(t)] = t.Lease.Expires.Add(admission.MaxClockSkew)
}

// takeBack reports whether t is a delivery this node passed on, and
// forgets it: it comes back once.
func (n *Node) takeBack(t *task.Task) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := admission.Key(t)
	exp, ok := n.left[k]
	if !ok {
		return false
	}
	delete(n.left, k)
	if time.Now().After(exp) {
		return false
	}
	n.stats.Returned++
	return true
}

// refused counts and logs a genuine task refused for err.
func (n *Node) refused(t *task.Task, from peer.ID, err error) {
	n.mu.Lock()
	switch {
	case errors.Is(err, admission.ErrNoLease):
		n.stats.Expired++
	case errors.Is(err, admission.ErrIssuedAhead):
		n.stats.IssuedAhead++
	case errors.Is(err, admission.ErrTargetMismatch):
		n.stats.Mistargeted++
	case errors.Is(err, admission.ErrMisaimed):
		n.stats.Misaimed++
	case errors.Is(err, admission.ErrSeen):
		n.stats.Replayed++
	}
	n.mu.Unlock()
	switch {
	case errors.Is(err, admission.ErrTooFar):
		n.log.Debug("Refused a shared task whose host is nearer its sharer", "task", t.ID, "from", from, "err", err)
	case errors.Is(err, admission.ErrIssuedAhead):
		n.log.Warn("Refused a task issued in the future: this computer's clock is probably behind; set it to the right time, for example by turning on automatic time",
			"task", t.ID, "issued", t.Issued, "now", time.Now(), "err", err)
	default:
		n.log.Info("Refused a task", "task", t.ID, "from", from, "err", err)
	}
}
