package manager

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/lease"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
)

// withdrawnAnswer refuses a claim or renewal of a peer whose
// request-signing key was withdrawn, and tells it every lease it holds
// is over (the fallback of the revocation WithdrawKey sends).
var withdrawnAnswer = lease.Answer{Error: "refused: this volunteer's request-signing key was withdrawn",
	Withdrawn: "the network's operator withdrew this volunteer's request-signing key"}

// mayNotCheck says why peer from may not claim spot-check r, when it is
// one and from is linked to the result it checks (links.go): the check
// ends as misrouted and is issued again to a peer of another network.
func (m *Manager) mayNotCheck(from peer.ID, r lease.Request, now time.Time) string {
	if !strings.HasPrefix(r.TaskID, checkPrefix) {
		return ""
	}
	t, err := m.db.Task(r.TaskID)
	if err != nil || t.Checks == "" {
		return ""
	}
	other, linked := m.nets.linked(from.String(), t.Avoid)
	if !linked {
		return ""
	}
	if err := m.db.Misroute(r.TaskID, r.Epoch, now); err != nil {
		m.log.Warn("Spot-check not ended as misrouted", "task", r.TaskID, "err", err)
	}
	m.log.Info("Spot-check claim refused: the claimer's network is that of the result's crawler or checker", "task", r.TaskID, "peer", from, "linked_to", other)
	return fmt.Sprintf("%s may not run this spot-check: it connects from the network of %s, whose result it checks", from, other)
}

// decideLease answers a crawler's lease request (manager/lease). The
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
		t, err = m.db.Release(r.TaskID, r.Epoch, from.String(), now)
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
