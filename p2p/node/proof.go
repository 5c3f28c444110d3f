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

// proof returns the proof, encoded, that task t (aimed at target) may be
// held: came, the proof t came here with, or, when came is nil, this
// node's certificate of the zone holding target; with to set, extended by
// this node's hand-off of t to peer to.
func (n *Node) proof(came []byte, t *task.Task, target can.Point, to peer.ID) ([]byte, error) {
	var (
		p   zonecert.Proof
		err error
	)
	if came != nil {
		p, err = zonecert.DecodeProof(came)
	} else {
		n.mu.Lock()
		c, ok := n.ownCertLocked(target)
		n.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("task %s: %w: this peer no longer holds its target", t.ID, admission.ErrMisaimed)
		}
		p = zonecert.OwnerProof(c)
	}
	if err == nil && to != "" {
		key := n.h.Peerstore().PrivKey(n.h.ID())
		if key == nil {
			return nil, fmt.Errorf("pass task %s on: no private key for %s", t.ID, n.h.ID())
		}
		p, err = p.Pass(t.ID, t.Lease.Epoch, to, key)
	}
	if err != nil {
		return nil, err
	}
	return p.MarshalBinary()
}
