package node

import (
	"fmt"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
)

// The manager grants a task's host lease only to a peer that proves it
// may hold the task (zonecert.Proof): the owner of the task's target by
// its certificate, or a peer the owner handed it to, by the hand-offs
// each peer on the way signed. A node keeps that proof with every task it
// queues, extends it with a hand-off whenever it balances or shares a
// task on, and checks it on every task passed to it, so that it never
// queues a task it could not claim.

// ownProof returns this node's proof, encoded, as the owner of target,
// for task t about to be queued here: its certificate of the zone holding
// target.
func (n *Node) ownProof(t *task.Task, target can.Point) ([]byte, error) {
	n.mu.Lock()
	c, ok := n.ownCertLocked(target)
	n.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("task %s: %w: this peer no longer holds its target", t.ID, admission.ErrMisaimed)
	}
	return zonecert.OwnerProof(c).MarshalBinary()
}

// passProof returns the proof to pass task t (aimed at target) on to peer
// to with: came, the proof t came here with, or, when came is nil, this
// node's own as target's owner, extended by a hand-off to to.
func (n *Node) passProof(came []byte, t *task.Task, target can.Point, to peer.ID) ([]byte, error) {
	if came != nil {
		p, err := zonecert.DecodeProof(came)
		if err != nil {
			return nil, err
		}
		return n.pass(p, t, to)
	}
	n.mu.Lock()
	c, ok := n.ownCertLocked(target)
	n.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("pass task %s on: this peer no longer holds its target", t.ID)
	}
	return n.pass(zonecert.OwnerProof(c), t, to)
}

// pass extends p, whose holder is this node, by a hand-off of t to peer
// to that this node signs, and encodes it.
func (n *Node) pass(p zonecert.Proof, t *task.Task, to peer.ID) ([]byte, error) {
	key := n.h.Peerstore().PrivKey(n.h.ID())
	if key == nil {
		return nil, fmt.Errorf("pass task %s on: no private key for %s", t.ID, n.h.ID())
	}
	p, err := p.Pass(t.ID, t.Lease.Epoch, to, key)
	if err != nil {
		return nil, err
	}
	return p.MarshalBinary()
}
