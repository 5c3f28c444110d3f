package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// routeRetries is how many times routing waits for a lagging neighbour table
// or routes around an unreachable next hop.
const routeRetries = 3

// loopCheckHops is the hop count at whose multiples routing pauses for a
// heartbeat round.
const loopCheckHops = 16

// Insert routes a signed task to the owner of target (with load balancing
// on insert) and returns the peer that queued it and the overlay hops taken.
func (n *Node) Insert(ctx context.Context, env []byte, target can.Point) (owner peer.ID, hops int, err error) {
	ins := &wire.Insert{Envelope: env, Target: can.Clamp(target), Ttl: uint32(n.cfg.TTL)}
	resp := n.route(ctx, ins, "")
	if resp.Error != "" {
		return "", int(resp.Hops), refusal(resp.Error)
	}
	owner, err = wire.ValidatePeerID(resp.Owner)
	if err != nil {
		return "", 0, fmt.Errorf("insert: owner: %w", err)
	}
	return owner, int(resp.Hops), nil
}

func (n *Node) handleInsert(s network.Stream) {
	var ins wire.Insert
	n.answer(s, "Insert", &ins, wire.MaxInsertSize, wire.MaxInsertResponseSize, func(ctx context.Context, from peer.ID) wire.Message {
		return n.route(ctx, &ins, from)
	})
}

func refuse(ins *wire.Insert, format string, args ...any) *wire.InsertResponse {
	msg := fmt.Sprintf(format, args...)
	if len(msg) > wire.MaxErrorLen {
		msg = msg[:wire.MaxErrorLen]
	}
	return &wire.InsertResponse{Error: msg, Hops: ins.Hops}
}

// route handles one insert here, received from peer from ("" when it
// starts here): forward it greedily, balance it, or accept.
func (n *Node) route(ctx context.Context, ins *wire.Insert, from peer.ID) *wire.InsertResponse {
	if len(ins.Target) != n.cfg.Dim {
		return refuse(ins, "target has %d dimensions, overlay uses %d", len(ins.Target), n.cfg.Dim)
	}
	if ins.Hops >= wire.MaxHops {
		return refuse(ins, "insert dropped after %d hops", ins.Hops)
	}
	target := can.Clamp(ins.Target)
	failed := map[can.PeerID]bool{} // next hops that could not be reached
	for attempt := 0; ; attempt++ {
		n.mu.Lock()
		if n.leaving || len(n.zones) == 0 {
			n.mu.Unlock()
			return refuse(ins, "%v", ErrLeaving)
		}
		infos := n.infosLocked()
		infos = slices.DeleteFunc(infos, func(i can.NeighbourInfo) bool { return failed[i.ID] })
		next, local, ok := can.NextHop(n.zones, infos, target)
		var (
			dec  can.Decision
			full bool
		)
		if local {
			full = n.queueFull()
			dec = n.decideLocked(infos, nil, target, from, ins.Ttl, full)
		}
		n.mu.Unlock()

		switch {
		case local && full && dec.Accept:
			// Refused before it is recorded as seen: the manager tries
			// it again later, here or elsewhere.
			return refuse(ins, "%v", ErrQueueFull)
		case local:
			return n.take(ctx, ins, target, dec, from)
		case ins.Lbi:
			// Passed on here by a neighbour balancing load: admitted by
			// its path of certificates, then queued or, while the TTL
			// allows and a neighbour is lighter, passed on again. A full
			// queue refuses it before it is recorded as seen, so the
			// sender may keep it.
			n.mu.Lock()
			full := n.queueFull()
			free := n.freeThreadLocked()
			n.mu.Unlock()
			if full && (ins.Share || ins.Ttl == 0) {
				return refuse(ins, "%v", ErrQueueFull)
			}
			if ins.Share && !free {
				return refuse(ins, "%v", ErrNoIdleThread)
			}
			in := admission.Insert{Envelope: ins.Envelope, Target: target, From: from, Proof: ins.Proof,
				Path: func() error { return n.checkPath(ins.Path, target, from) }}
			if ins.Share {
				in.Sharer = time.Duration(ins.HostRttUs) * time.Microsecond
			}
			t, err := n.gate.Admit(ctx, in)
			if err != nil {
				return refuse(ins, "%v", err)
			}
			if !ins.Share && ins.Ttl > 0 {
				n.mu.Lock()
				dec := n.decideLocked(n.balanceInfosLocked(ins.Path), ins.Path, target, from, ins.Ttl, full)
				n.mu.Unlock()
				if !dec.Accept {
					if resp := n.balance(ctx, ins, target, t, dec); resp != nil {
						return resp
					}
				}
			}
			return n.enqueue(ctx, ins, t, ins.Proof)
		case ok:
			if ins.Hops > 0 && ins.Hops%loopCheckHops == 0 {
				// Far more hops than greedy routing takes: tables are
				// stale and may send the insert in circles. Let a
				// heartbeat round correct them before going on.
				select {
				case <-ctx.Done():
					return refuse(ins, "%v", ctx.Err())
				case <-time.After(n.cfg.Heartbeat):
				}
			}
			fwd := &wire.Insert{Envelope: ins.Envelope, Target: target, Ttl: ins.Ttl, Hops: ins.Hops + 1}
			resp, err := n.forward(ctx, peer.ID(next), fwd)
			if err == nil {
				return resp
			}
			if attempt == routeRetries {
				return refuse(ins, "forward to %s: %v", peer.ID(next), err)
			}
			// Unreachable next hop: count the miss and route around it.
			n.missed(peer.ID(next))
			failed[next] = true
		case attempt == routeRetries:
			n.log.Debug("No route", "target", fmt.Sprint(target), "zones", fmt.Sprint(n.Zones()), "neighbours", fmt.Sprint(infos))
			return refuse(ins, "%v", can.ErrNoRoute)
		default:
			// A neighbour table can lag a join or takeover by a heartbeat;
			// when no neighbour is closer, wait for the next round.
			select {
			case <-ctx.Done():
				return refuse(ins, "%v", ctx.Err())
			case <-time.After(n.cfg.Heartbeat):
			}
		}
	}
}

// balanceTo returns the neighbours load balancing may send an insert to:
// all but the peer it came from, unless that is the only one. Its load as
// last announced may be stale, and sending the task straight back would
// only bounce it.
func balanceTo(infos []can.NeighbourInfo, from peer.ID) []can.NeighbourInfo {
	if from == "" {
		return infos
	}
	out := slices.DeleteFunc(slices.Clone(infos), func(i can.NeighbourInfo) bool { return i.ID == can.PeerID(from) })
	if len(out) == 0 {
		return infos
	}
	return out
}

func (n *Node) forward(ctx context.Context, to peer.ID, ins *wire.Insert) (*wire.InsertResponse, error) {
	n.count(&n.stats.Forwarded, 1)
	var resp wire.InsertResponse
	if _, err := wire.Call(ctx, n.h, to, wire.InsertProtocol, ins, wire.MaxInsertSize, &resp, wire.MaxInsertResponseSize); err != nil {
		return nil, err
	}
	return &resp, nil
}

// take handles an insert whose target lies in our zones, received from
// peer from: it admits the task, then balances it to a lighter neighbour
// (dec) or queues it here. With load balancing on (Config.MaxPieces), a
// task the queue turns away as full is balanced as an overloaded peer's
// would be: the queue fills before the load threshold is reached when
// tasks come faster than they start, since the threshold counts running
// tasks and the queue's limit only waiting ones.
func (n *Node) take(ctx context.Context, ins *wire.Insert, target can.Point, dec can.Decision, from peer.ID) *wire.InsertResponse {
	t, err := n.gate.Admit(ctx, admission.Insert{Envelope: ins.Envelope, Target: target})
	if err != nil {
		return refuse(ins, "%v", err)
	}
	proof, err := n.proof(nil, t, target, "")
	if err != nil {
		return refuse(ins, "%v", err)
	}
	if t.Pinned {
		// Aimed at this peer: never balanced (task.Task.Pinned).
		return n.enqueue(ctx, ins, t, proof)
	}
	if !dec.Accept {
		if resp := n.balance(ctx, ins, target, t, dec); resp != nil {
			return resp
		}
		// The lighter neighbour is gone or refused: keep the task.
		return n.enqueue(ctx, ins, t, proof)
	}
	err = n.queue.Enqueue(ctx, t, ins.Envelope, proof)
	if errors.Is(err, ErrQueueFull) {
		n.mu.Lock()
		full := n.decideLocked(n.infosLocked(), nil, target, from, ins.Ttl, true)
		n.mu.Unlock()
		if !full.Accept {
			if resp := n.balance(ctx, ins, target, t, full); resp != nil {
				return resp
			}
		}
	}
	return n.queued(ins, t, err)
}

// decideLocked is load balancing on insert at the owner of an insert's
// target, or at a peer it was balanced to with the path came, received
// from peer from with ttl forwards left. Only the neighbours the path can
// reach are candidates: one of this node's zones that extends the path
// (at the owner, the zone holding target) must abut theirs
// (admission.ExtendPath), and a peer holding several zones abuts some
// neighbours with other zones than that one. A full queue counts as
// overloaded: the task is balanced if a neighbour is lighter (with
// balancing off, Config.MaxPieces 0, the threshold is infinite and the
// task stays). n.mu must be held.
func (n *Node) decideLocked(infos []can.NeighbourInfo, came [][]byte, target can.Point, from peer.ID, ttl uint32, full bool) can.Decision {
	ot := n.cfg.threshold()
	if full && n.cfg.MaxPieces > 0 {
		ot = math.Inf(-1)
	}
	infos = slices.DeleteFunc(infos, func(i can.NeighbourInfo) bool {
		_, ok := admission.ExtendPath(came, n.own, target, i.Zones, n.cfg.Dim)
		return !ok
	})
	return can.DecideInsert(n.load(), ot, balanceTo(infos, from), int(ttl))
}

// queueFull reports whether the queue says it is full (Fuller); n.mu must
// be held.
func (n *Node) queueFull() bool {
	f, ok := n.queue.(Fuller)
	return ok && f.Full()
}

// balance forwards admitted task t to the neighbour dec names, adding this
// node's certificate to the insert's path (the owner's, holding target,
// starts it) and its hand-off to the task's proof; nil when that
// neighbour is gone or refused it for another reason than having seen it,
// so the caller keeps the task.
func (n *Node) balance(ctx context.Context, ins *wire.Insert, target can.Point, t *task.Task, dec can.Decision) *wire.InsertResponse {
	var (
		came  [][]byte // the path and proof the task came with; none at its owner
		proof []byte
	)
	if ins.Lbi {
		came, proof = ins.Path, ins.Proof
	}
	n.mu.Lock()
	var next []can.Zone
	if nb := n.nbrs[peer.ID(dec.To)]; nb != nil {
		next = nb.zones
	}
	path, ok := admission.ExtendPath(came, n.own, target, next, n.cfg.Dim)
	n.mu.Unlock()
	if !ok {
		return nil
	}
	proof, err := n.proof(proof, t, target, peer.ID(dec.To))
	if err != nil {
		n.log.Warn("Task not balanced: no proof to pass on", "task", t.ID, "err", err)
		return nil
	}
	fwd := &wire.Insert{Envelope: ins.Envelope, Target: target, Ttl: uint32(dec.TTL), Hops: ins.Hops + 1, Lbi: true, Path: path, Proof: proof}
	resp, err := n.forward(ctx, peer.ID(dec.To), fwd)
	switch {
	case err == nil && resp.Accepted:
		n.noteBalanced(peer.ID(dec.To), t)
		n.gate.Passed(t)
		return resp
	case err == nil && strings.Contains(resp.Error, admission.ErrSeen.Error()):
		// The neighbour took this task before and holds it, or
		// handed it on: queued here too, it would run twice.
		return resp
	}
	return nil
}

// balanceInfosLocked returns the neighbours a balanced insert may go on
// to: not the peers on its path. n.mu must be held.
func (n *Node) balanceInfosLocked(path [][]byte) []can.NeighbourInfo {
	on := map[can.PeerID]bool{}
	for _, c := range zonecert.DecodeEach(path) {
		on[can.PeerID(c.Holder)] = true
	}
	return slices.DeleteFunc(n.infosLocked(), func(i can.NeighbourInfo) bool { return on[i.ID] })
}

// enqueue queues an admitted task here with the proof that it may be
// claimed here.
func (n *Node) enqueue(ctx context.Context, ins *wire.Insert, t *task.Task, proof []byte) *wire.InsertResponse {
	return n.queued(ins, t, n.queue.Enqueue(ctx, t, ins.Envelope, proof))
}

// queued answers an insert of task t that the queue took (err nil) or
// refused.
func (n *Node) queued(ins *wire.Insert, t *task.Task, err error) *wire.InsertResponse {
	if err != nil {
		return refuse(ins, "queue task %s: %v", t.ID, err)
	}
	n.count(&n.stats.Accepted, 1)
	return &wire.InsertResponse{Accepted: true, Owner: []byte(n.h.ID()), Hops: ins.Hops}
}

// noteBalanced adds task t, just balanced to neighbour id, to the load
// id's last heartbeat announced, reckoned at this peer's own capacity,
// until id's next heartbeat brings the real figure. Without it, inserts
// that come faster than heartbeats (a manager sends to several hosts at
// once) all go to the same lightest neighbour and swamp it.
func (n *Node) noteBalanced(id peer.ID, t *task.Task) {
	add := can.NewLoad(1, int64(max(t.ExpectedPages, 1)), n.cfg.Capacity)
	if math.IsInf(add.RPL, 0) {
		return // no capacity of our own to reckon with
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if nb := n.nbrs[id]; nb != nil {
		nb.load.RTL += add.RTL
		nb.load.RPL += add.RPL
	}
}
