package manager

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/task"
)

// withdrawnAnswer refuses a claim or renewal of a peer whose
// request-signing key was withdrawn, and tells it every lease it holds
// is over (the fallback of the revocation WithdrawKey sends).
var withdrawnAnswer = lease.Answer{Error: "refused: this volunteer's request-signing key was withdrawn",
	Withdrawn: "the network's operator withdrew this volunteer's request-signing key"}

// mayNotCheck says why peer from may not claim spot-check r, when it is
// one and from is linked to the result it checks (manager/peernets): the check
// ends as misrouted and is issued again to a peer of another network.
func (m *Manager) mayNotCheck(from peer.ID, r lease.Request, now time.Time) string {
	if !strings.HasPrefix(r.TaskID, checkPrefix) {
		return ""
	}
	t, err := m.db.Task(r.TaskID)
	if err != nil || t.Checks == "" {
		return ""
	}
	other, linked := m.nets.Linked(from.String(), t.Avoid)
	if !linked {
		return ""
	}
	if err := m.db.Misroute(r.TaskID, r.Epoch, now); err != nil {
		m.log.Warn("Spot-check not ended as misrouted", "task", r.TaskID, "err", err)
	}
	m.log.Info("Spot-check claim refused: the claimer's network is that of the result's crawler or checker", "task", r.TaskID, "peer", from, "linked_to", other)
	return fmt.Sprintf("%s may not run this spot-check: it connects from the network of %s, whose result it checks", from, other)
}

// mayNotHold says why peer from may not claim task t's lease: its proof
// (p2p/zonecert.Proof) does not show that it holds the task, as the
// holder of the zone holding the task's target when or after the task
// was issued, or as a peer that holder handed the task to (load balancing,
// sharing), every hand-off signed by the peer that made it. A peer that
// only saw the task's envelope, on its routing path or as a neighbour it
// was balanced past, cannot show one, so it cannot squat the host.
func (m *Manager) mayNotHold(from peer.ID, t *task.Task, raw []byte) string {
	if len(raw) == 0 {
		return "the claim shows no proof that this peer may hold the task (clients of earlier releases send none)"
	}
	target := can.Clamp(t.Target)
	if len(target) != m.sub.Options().Dim {
		return fmt.Sprintf("the task's target has %d dimensions, the overlay %d", len(target), m.sub.Options().Dim)
	}
	p, err := zonecert.DecodeProof(raw)
	if err != nil {
		err = fmt.Errorf("%w: %v", zonecert.ErrNoProof, err)
	} else {
		c := zonecert.Claim{Task: t.ID, Epoch: t.Lease.Epoch, Target: target, Issued: t.Issued, Claimer: from}
		if owner, ok := m.ownerOf(target); ok && owner == p.Owner.Holder {
			// The map has it hold the target now, after the task was
			// issued: the expiry of the certificate it kept with the
			// task (renewed since) is beside the point.
			c.Issued = time.Time{}
		}
		err = p.Verify(m.key.GetPublic(), c)
	}
	if err != nil {
		m.log.Info("Lease claim refused: no proof that the claimer may hold the task", "task", t.ID, "peer", from, "err", err)
		return err.Error()
	}
	return ""
}

// decideLease answers a crawler's lease request (proto/lease). The
// channel database decides and persists before the answer goes out.
func (m *Manager) decideLease(_ context.Context, from peer.ID, r lease.Request) lease.Answer {
	now := m.opts.Now()
	var (
		t   channels.Task
		err error
	)
	switch r.Op {
	case lease.Claim:
		got, oerr := envelope.Open(r.Task, m.key.GetPublic())
		switch {
		case oerr != nil:
			return lease.Answer{Error: "refused: " + oerr.Error()}
		case got.ID != r.TaskID || got.Lease.Epoch != r.Epoch:
			return lease.Answer{Error: "refused: the request does not match its signed task"}
		}
		if a, refused := m.keyRefusal(from); refused {
			return a
		}
		if why := m.outdated(r.Version); why != "" {
			m.log.Info("Lease refused to an outdated client", "task", r.TaskID, "peer", from, "version", r.Version)
			return lease.Answer{Error: "refused: " + why, Outdated: why}
		}
		if why := m.mayNotHold(from, got, r.Proof); why != "" {
			return lease.Answer{Error: "refused: " + why}
		}
		if cerr := m.certify(from, r.BotKey); cerr != nil {
			return lease.Answer{Error: "refused: " + cerr.Error()}
		}
		if why := m.mayNotCheck(from, r, now); why != "" {
			return lease.Answer{Error: "refused: " + why}
		}
		t, err = m.db.ClaimFrom(r.TaskID, r.Epoch, from.String(), r.Addrs, now, m.opts.leaseTimes(0))
		if err == nil {
			m.log.Debug("Lease claimed", "task", r.TaskID, "host", t.Host, "epoch", t.Epoch, "peer", from)
		}
	case lease.Renew:
		if a, refused := m.keyRefusal(from); refused {
			return a
		}
		p := channels.Progress{Pages: r.Pages, Requests: r.Requests, Wait: r.Wait}
		t, err = m.db.Renew(r.TaskID, r.Epoch, from.String(), p, now, m.opts.leaseTimes(0))
		if errors.Is(err, channels.ErrStalled) {
			m.log.Info("Lease ended: its crawl stopped moving", "task", r.TaskID, "peer", from, "err", err)
		}
	case lease.Release:
		t, err = m.db.Release(r.TaskID, r.Epoch, from.String(), r.Wait, now)
		if err == nil {
			m.log.Info("Lease released", "task", r.TaskID, "host", t.Host, "peer", from)
		}
	}
	switch {
	case err == nil:
		return lease.Answer{Granted: true, Expires: t.Expires, RenewEvery: m.opts.LeaseHold / 3}
	case errors.Is(err, channels.ErrLeaseHeld):
		a := lease.Answer{Held: true, Error: err.Error()}
		if h, ok := errors.AsType[*channels.HeldError](err); ok {
			a.RetryIn = h.RetryIn
		}
		return a
	default:
		if !errors.Is(err, channels.ErrLeaseOver) {
			m.log.Warn("Lease request failed", "op", r.Op, "task", r.TaskID, "err", err)
		}
		return lease.Answer{Error: err.Error()}
	}
}

// ownerOf returns the holder of the zone holding p by the manager's map;
// ok is false without a map or holder.
func (m *Manager) ownerOf(p can.Point) (peer.ID, bool) {
	if m.zones == nil {
		return "", false
	}
	return m.zones.Owner(p)
}
