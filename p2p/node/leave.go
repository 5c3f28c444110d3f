package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/handover"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Leave asks the manager to give this node's zones to their heirs, then
// hands each heir the queued and running tasks whose targets lie in the
// zones it received (p2p/handover), and gives the rest back to the
// manager. After Leave the node holds nothing; Serve may be stopped. A
// node that was the last peer keeps its tasks in its queue.
func (n *Node) Leave(ctx context.Context) error {
	n.mu.Lock()
	if len(n.own) == 0 {
		n.member = false
		n.mu.Unlock()
		return ErrNotJoined
	}
	n.leaving = true
	old := slices.Clone(n.own)
	n.mu.Unlock()
	if err := n.ask(ctx, zonecert.Request{Op: zonecert.OpLeave}); err != nil {
		n.mu.Lock()
		n.leaving = false
		n.mu.Unlock()
		return fmt.Errorf("leave: %w", err)
	}
	n.mu.Lock()
	n.member = false
	heirs, certs := n.heirsLocked(old)
	n.mu.Unlock()
	if len(heirs) == 0 {
		return nil // the last peer: nobody to hand tasks to
	}
	queued, running, err := n.queue.Drain(ctx)
	if err != nil {
		return fmt.Errorf("leave: drain queue: %w", err)
	}
	cfg := handover.Config{Manager: n.cfg.Manager, Dim: n.cfg.Dim, Pause: max(n.cfg.HandoverPause, 0)}
	back, herr := handover.Hand(ctx, n.h, heirs, certs, queued, running, cfg)
	if err := errors.Join(herr, n.giveBack(ctx, back)); err != nil {
		return fmt.Errorf("leave: %w", err)
	}
	return nil
}

// heirsLocked returns the holders of the zones in old (the leaving node's
// certificates) by the book, after the manager's grant, and the
// certificates a handover carries: old, which the heirs check, and the
// heirs', from which an heir the grant has not reached yet learns it.
// n.mu must be held.
func (n *Node) heirsLocked(old []zonecert.Cert) ([]handover.Heir, []zonecert.Cert) {
	var heirs []handover.Heir
	certs := slices.Clone(old)
	for id, cs := range n.book.Successors(old, n.h.ID(), time.Now()) {
		heirs = append(heirs, handover.Heir{ID: id, Zones: zonecert.Zones(cs, n.cfg.Dim)})
		certs = append(certs, cs...)
	}
	return heirs, certs
}

// giveBack gives tasks no neighbour queued back to the manager, when the
// queue can (Returner); without it they wait for their deadline.
func (n *Node) giveBack(ctx context.Context, envelopes [][]byte) error {
	if len(envelopes) == 0 {
		return nil
	}
	r, ok := n.queue.(Returner)
	if !ok {
		return fmt.Errorf("%d tasks not handed over; the manager issues them again after their deadline", len(envelopes))
	}
	if err := r.Return(ctx, envelopes); err != nil {
		return fmt.Errorf("give %d tasks back to the manager: %w", len(envelopes), err)
	}
	n.count(&n.stats.GivenBack, int64(len(envelopes)))
	n.log.Info("Tasks no neighbour could queue given back to the manager", "count", len(envelopes))
	return nil
}

func (n *Node) handleHandover(s network.Stream) {
	defer s.Close()
	from := s.Conn().RemotePeer()
	ctx, cancel := context.WithTimeout(context.Background(), 2*wire.DefaultTimeout)
	defer cancel()
	check := func(m *wire.Handover) error {
		err := n.checkHandover(from, m)
		if err != nil {
			n.count(&n.stats.HandoversRefused, 1)
			n.log.Info("Refused a handover", "from", from, "err", err)
		}
		return err
	}
	_, err := wire.ReceiveHandover(ctx, wire.NewConn(s, wire.MaxHandoverSize), check, func(e []byte) wire.Taken {
		return n.takeHandedOver(ctx, from, e)
	})
	if err != nil {
		n.log.Debug("Handover failed", "from", from, "err", err)
		s.Reset()
	}
}

// takeHandedOver queues one task a leaving neighbour handed over, if it
// verifies and passes admission (admission.Gate.AdmitHandedOver).
func (n *Node) takeHandedOver(ctx context.Context, from peer.ID, e []byte) wire.Taken {
	t, err := n.gate.AdmitHandedOver(ctx, e, from)
	if err != nil {
		return wire.Dropped // counted and logged
	}
	proof, err := n.proof(nil, t, can.Clamp(t.Target), "")
	if err == nil {
		err = n.queue.Enqueue(ctx, t, e, proof)
	}
	if err != nil {
		// Given back, the leaving peer passes it on. Should the manager
		// send it again, it comes under the host's next lease: not
		// refused as seen.
		n.log.Info("Handed-over task not queued; given back", "task", t.ID, "from", from, "err", err)
		return wire.Declined
	}
	// Counted as queued, before the answer tells the leaving peer.
	n.count(&n.stats.HandedIn, 1)
	return wire.Queued
}

// checkHandover accepts the certificates a leaving peer sends with its
// tasks and checks that it may hand them to us (admission.CheckHandover).
func (n *Node) checkHandover(from peer.ID, m *wire.Handover) error {
	certs := zonecert.DecodeEach(m.Certs)
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.leaving {
		return ErrLeaving
	}
	n.adoptLocked(certs, now) // ours among them: the grant the leaver received
	return admission.CheckHandover(certs, from, n.own, n.cfg.Manager)
}
