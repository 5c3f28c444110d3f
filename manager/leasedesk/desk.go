// Package leasedesk answers the crawlers' host-lease requests
// (proto/lease): claims, renewals and releases. The channel database
// decides and persists each before the answer goes out
// (docs/developer/leases.md); the desk first checks who asks: the task
// signed by the manager, the claimer's key not withdrawn, its client
// recent enough, a proof that it may hold the task, and, for a
// spot-check, a network other than those of the result's crawler and
// earlier checkers.
package leasedesk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/task"
)

// Config is what a Desk reads and asks of the rest of the manager.
type Config struct {
	DB *channels.DB
	// Key is the manager's public key: tasks and zone certificates are
	// signed by it.
	Key crypto.PubKey
	// Dim is the CAN space's dimension.
	Dim int
	// Times are the leases' hold, start window, skew and politeness
	// waits; a granted lease is renewed every RenewEvery.
	Times      channels.LeaseTimes
	RenewEvery time.Duration
	Now        func() time.Time
	Logger     *slog.Logger // nil: none
	// Owner returns the holder of the zone holding p by the manager's
	// map; ok is false without one.
	Owner func(p can.Point) (peer.ID, bool)
	// Linked reports whether peer connects from the network of one of
	// others, and which (manager/peernets).
	Linked func(peer string, others []string) (other string, linked bool)
	// Refusal is the answer to a peer that may hold no lease (its
	// request-signing key withdrawn, or unknown for now); refused is
	// false when it may go on.
	Refusal func(p peer.ID) (a lease.Answer, refused bool)
	// Outdated says why a client of version may take no task, "" when
	// it may.
	Outdated func(version string) string
	// Certify records the request-signing key a claim presents.
	Certify func(from peer.ID, key []byte) error
}

// Desk answers lease requests; Decide is its proto/lease handler.
type Desk struct {
	cfg Config
	log *slog.Logger
}

// New returns a Desk over cfg.
func New(cfg Config) *Desk {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Desk{cfg: cfg, log: cfg.Logger}
}

// Decide answers peer from's lease request r.
func (d *Desk) Decide(_ context.Context, from peer.ID, r lease.Request) lease.Answer {
	now := d.cfg.Now()
	var (
		t   channels.Task
		err error
	)
	switch r.Op {
	case lease.Claim:
		got, oerr := envelope.Open(r.Task, d.cfg.Key)
		switch {
		case oerr != nil:
			return lease.Answer{Error: "refused: " + oerr.Error()}
		case got.ID != r.TaskID || got.Lease.Epoch != r.Epoch:
			return lease.Answer{Error: "refused: the request does not match its signed task"}
		}
		if a, refused := d.cfg.Refusal(from); refused {
			return a
		}
		if why := d.cfg.Outdated(r.Version); why != "" {
			d.log.Info("Lease refused to an outdated client", "task", r.TaskID, "peer", from, "version", r.Version)
			return lease.Answer{Error: "refused: " + why, Outdated: why}
		}
		if why := d.mayNotHold(from, got, r.Proof); why != "" {
			return lease.Answer{Error: "refused: " + why}
		}
		if cerr := d.cfg.Certify(from, r.BotKey); cerr != nil {
			return lease.Answer{Error: "refused: " + cerr.Error()}
		}
		if why := d.mayNotCheck(from, r, now); why != "" {
			return lease.Answer{Error: "refused: " + why}
		}
		t, err = d.cfg.DB.ClaimFrom(r.TaskID, r.Epoch, from.String(), r.Addrs, now, d.cfg.Times)
		if err == nil {
			d.log.Debug("Lease claimed", "task", r.TaskID, "host", t.Host, "epoch", t.Epoch, "peer", from)
		}
	case lease.Renew:
		if a, refused := d.cfg.Refusal(from); refused {
			return a
		}
		p := channels.Progress{Pages: r.Pages, Requests: r.Requests, Wait: r.Wait}
		t, err = d.cfg.DB.Renew(r.TaskID, r.Epoch, from.String(), p, now, d.cfg.Times)
		if errors.Is(err, channels.ErrStalled) {
			d.log.Info("Lease ended: its crawl stopped moving", "task", r.TaskID, "peer", from, "err", err)
		}
	case lease.Release:
		t, err = d.cfg.DB.Release(r.TaskID, r.Epoch, from.String(), r.Wait, now)
		if err == nil {
			d.log.Info("Lease released", "task", r.TaskID, "host", t.Host, "peer", from)
		}
	}
	switch {
	case err == nil:
		return lease.Answer{Granted: true, Expires: t.Expires, RenewEvery: d.cfg.RenewEvery}
	case errors.Is(err, channels.ErrLeaseHeld):
		a := lease.Answer{Held: true, Error: err.Error()}
		if h, ok := errors.AsType[*channels.HeldError](err); ok {
			a.RetryIn = h.RetryIn
		}
		return a
	default:
		if !errors.Is(err, channels.ErrLeaseOver) {
			d.log.Warn("Lease request failed", "op", r.Op, "task", r.TaskID, "err", err)
		}
		return lease.Answer{Error: err.Error()}
	}
}

// mayNotHold says why peer from may not claim task t's lease: its proof
// (p2p/zonecert.Proof) does not show that it holds the task, as the
// holder of the zone holding the task's target when or after the task
// was issued, or as a peer that holder handed the task to (load balancing,
// sharing), every hand-off signed by the peer that made it; a pinned task
// (task.Task.Pinned) by its holder alone. A peer that only saw the task's
// envelope, on its routing path or as a neighbour it was balanced past,
// cannot show one, so it cannot squat the host.
func (d *Desk) mayNotHold(from peer.ID, t *task.Task, raw []byte) string {
	if len(raw) == 0 {
		return "the claim shows no proof that this peer may hold the task (clients of earlier releases send none)"
	}
	target := can.Clamp(t.Target)
	if len(target) != d.cfg.Dim {
		return fmt.Sprintf("the task's target has %d dimensions, the overlay %d", len(target), d.cfg.Dim)
	}
	p, err := zonecert.DecodeProof(raw)
	if err != nil {
		err = fmt.Errorf("%w: %v", zonecert.ErrNoProof, err)
	} else {
		c := zonecert.Claim{Task: t.ID, Epoch: t.Lease.Epoch, Target: target, Issued: t.Issued, Pinned: t.Pinned, Claimer: from}
		if owner, ok := d.cfg.Owner(target); ok && owner == p.Owner.Holder {
			// The map has it hold the target now, after the task was
			// issued: the expiry of the certificate it kept with the
			// task (renewed since) is beside the point.
			c.Issued = time.Time{}
		}
		err = p.Verify(d.cfg.Key, c)
	}
	if err != nil {
		d.log.Info("Lease claim refused: no proof that the claimer may hold the task", "task", t.ID, "peer", from, "err", err)
		return err.Error()
	}
	return ""
}

// mayNotCheck says why peer from may not claim spot-check r, when it is
// one and from is linked to the result it checks (manager/peernets): the
// check ends as misrouted and is issued again to a peer of another
// network.
func (d *Desk) mayNotCheck(from peer.ID, r lease.Request, now time.Time) string {
	if !strings.HasPrefix(r.TaskID, channels.CheckPrefix) {
		return "" // no task record read for a crawl's claim
	}
	t, err := d.cfg.DB.Task(r.TaskID)
	if err != nil || t.Checks == "" {
		return ""
	}
	other, linked := d.cfg.Linked(from.String(), t.Avoid)
	if !linked {
		return ""
	}
	if err := d.cfg.DB.Misroute(r.TaskID, r.Epoch, now); err != nil {
		d.log.Warn("Spot-check not ended as misrouted", "task", r.TaskID, "err", err)
	}
	d.log.Info("Spot-check claim refused: the claimer's network is that of the result's crawler or checker", "task", r.TaskID, "peer", from, "linked_to", other)
	return fmt.Sprintf("%s may not run this spot-check: it connects from the network of %s, whose result it checks", from, other)
}
