// Package revoke tells crawlers, in the background, that leases of
// theirs are over (proto/lease's revocation), so that they stop before
// their next request to the host rather than at their next renewal. The
// word is a courtesy that saves the web a few requests: should it not
// arrive, the lease desk refuses the crawler's next renewal all the same.
package revoke

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/proto/lease"
)

// How long, and how often, a crawler is told that one of its leases
// ended: within the minute an opt-out promises, after which the refusal
// of the crawler's renewal is all that is left. WholeFor bounds the one
// try to tell a peer that every lease it holds is over.
const (
	LeaseFor   = 50 * time.Second
	LeaseRetry = 5 * time.Second
	WholeFor   = 10 * time.Second
)

// Teller sends the revocations. Close stops those under way.
type Teller struct {
	host   lease.StreamOpener
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a teller sending from h.
func New(h lease.StreamOpener, log *slog.Logger) *Teller {
	ctx, cancel := context.WithCancel(context.Background())
	return &Teller{host: h, log: log, ctx: ctx, cancel: cancel}
}

// Lease tells crawler p that its lease on host for task id is over
// because the site opted out; it tries again every LeaseRetry for
// LeaseFor while p is not reached.
func (t *Teller) Lease(p peer.ID, id, host string) {
	r := lease.Revocation{Reason: "the site " + host + " opted out of this crawler", TaskID: id, Host: host}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.ctx, LeaseFor)
		defer cancel()
		for {
			err := lease.Revoke(ctx, t.host, p, r)
			if err == nil {
				t.log.Info("Crawler told its lease is over", "peer", p, "task", id, "host", host)
				return
			}
			select {
			case <-ctx.Done():
				t.log.Info("Crawler not told its lease is over; its next renewal is refused", "peer", p, "task", id, "err", err)
				return
			case <-time.After(LeaseRetry):
			}
		}
	}()
}

// All tells peer p, once and for at most WholeFor, that every lease it
// holds is over: its request-signing key was withdrawn for reason.
func (t *Teller) All(p peer.ID, reason string) {
	if len(reason) > lease.MaxReasonLen {
		reason = strings.ToValidUTF8(reason[:lease.MaxReasonLen], "")
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.ctx, WholeFor)
		defer cancel()
		if err := lease.Revoke(ctx, t.host, p, lease.Revocation{Reason: reason}); err != nil {
			t.log.Info("Volunteer not told of its withdrawn key; its next lease renewal is refused", "peer", p, "err", err)
			return
		}
		t.log.Info("Volunteer told its leases are over", "peer", p)
	}()
}

// Close stops the revocations under way and waits for them.
func (t *Teller) Close() {
	t.cancel()
	t.wg.Wait()
}
