package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Leave asks the manager to give this node's zones to their heirs, then
// hands each heir the queued and running tasks whose targets lie in the
// zones it received. After Leave the node holds nothing; Serve may be
// stopped. A node that was the last peer keeps its tasks in its queue.
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
	heirs := n.heirsLocked(old)
	n.mu.Unlock()
	if len(heirs) == 0 {
		return nil // the last peer: nobody to hand tasks to
	}
	queued, running, err := n.queue.Drain(ctx)
	if err != nil {
		return fmt.Errorf("leave: drain queue: %w", err)
	}
	if len(running) > 0 && n.cfg.HandoverPause > 0 {
		// One crawler at a time per host: the heir starts these tasks
		// at once, so let the hosts finish our last requests first.
		select {
		case <-ctx.Done(): // the handover below fails, and says why
		case <-time.After(n.cfg.HandoverPause):
		}
	}
	proof := make([][]byte, 0, len(old)+len(heirs))
	for _, c := range old {
		if b, err := c.MarshalBinary(); err == nil {
			proof = append(proof, b)
		}
	}
	for _, h := range heirs {
		for _, c := range h.certs {
			if b, err := c.MarshalBinary(); err == nil && len(proof) < wire.MaxZones {
				proof = append(proof, b)
			}
		}
	}
	shares, back := n.divide(heirs, queued, running)
	var errs []error
	for i, h := range heirs {
		q, r := shares[i].queued, shares[i].running
		if len(q)+len(r) == 0 {
			continue
		}
		all := append(append([][]byte(nil), q...), r...) // in the order sent
		declined, err := n.handOver(ctx, h.id, wire.SplitHandover(&wire.Handover{Certs: proof}, q, r))
		if err != nil {
			errs = append(errs, err)
			back = append(back, all...)
			continue
		}
		back = append(back, wire.DeclinedOf(all, declined)...)
	}
	backErr := n.giveBack(ctx, back)
	if err := errors.Join(append(errs, backErr)...); err != nil {
		return fmt.Errorf("leave: %w", err)
	}
	return nil
}

// heir is a peer the manager gave some of a leaving node's zones to.
type heir struct {
	id    peer.ID
	certs []zonecert.Cert
	zones []can.Zone
}

// heirsLocked returns the holders of the zones in old (the leaving node's
// certificates) by the book, after the manager's grant: the heirs, the one
// taking the most volume first. n.mu must be held.
func (n *Node) heirsLocked(old []zonecert.Cert) []heir {
	var out []heir
	for id, certs := range n.book.Successors(old, n.h.ID(), time.Now()) {
		out = append(out, heir{id, certs, zonecert.Zones(certs, n.cfg.Dim)})
	}
	slices.SortFunc(out, func(a, b heir) int {
		if c := cmp.Compare(can.Volume(b.zones), can.Volume(a.zones)); c != 0 {
			return c
		}
		return strings.Compare(string(a.id), string(b.id))
	})
	return out
}

// heirShare is the tasks one heir is handed.
type heirShare struct{ queued, running [][]byte }

// divide gives each heir the tasks of queued and running whose signed
// target lies in its zones, where its certificate proves to the manager
// that it may claim them. The rest, whose target no heir holds, came here
// balanced or shared: no heir could prove it may claim their leases, so
// they go back to the manager, which issues their hosts again. Each
// envelope is opened once.
func (n *Node) divide(heirs []heir, queued, running [][]byte) (shares []heirShare, back [][]byte) {
	shares = make([]heirShare, len(heirs))
	for _, set := range []struct {
		envs    [][]byte
		running bool
	}{{queued, false}, {running, true}} {
		for _, e := range set.envs {
			target, ok := n.envelopeTarget(e)
			i := -1
			if ok {
				i = slices.IndexFunc(heirs, func(h heir) bool { return can.Holds(h.zones, target) })
			}
			switch {
			case i < 0:
				back = append(back, e)
			case set.running:
				shares[i].running = append(shares[i].running, e)
			default:
				shares[i].queued = append(shares[i].queued, e)
			}
		}
	}
	return shares, back
}

// envelopeTarget reads the signed target of a task envelope; ok is false
// when it has none of the overlay's dimension.
func (n *Node) envelopeTarget(env []byte) (can.Point, bool) {
	t, err := envelope.Open(env, n.cfg.Manager)
	if err != nil || len(t.Target) != n.cfg.Dim {
		return nil, false
	}
	return can.Clamp(t.Target), true
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

// handOver sends the batches to heir to and returns the positions of
// the tasks it took the zones but not the tasks of (its queue was full).
func (n *Node) handOver(ctx context.Context, to peer.ID, batches []*wire.Handover) ([]uint32, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*wire.DefaultTimeout)
	defer cancel()
	s, err := n.h.NewStream(wire.AllowRelayed(ctx), to, wire.HandoverProtocol)
	if err != nil {
		return nil, fmt.Errorf("hand over to %s: %w", to, err)
	}
	defer s.Close()
	declined, err := wire.SendHandover(ctx, wire.NewConn(s, wire.MaxHandoverResponseSize), batches)
	if err != nil {
		s.Reset()
		return nil, fmt.Errorf("hand over to %s: %w", to, err)
	}
	return declined, nil
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
