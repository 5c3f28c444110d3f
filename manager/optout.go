package manager

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/proto/lease"
)

// OptOut puts hosts or registrable domains (or URLs on them) on the
// opt-out list (channels.DB.AddOptOut), all or none: a name that is no
// web site's is refused (wrapping channels.ErrBadSeed) before any is
// added. by says who asked (channels.OptOutByOperator, or the site and
// its proof). Each crawler holding a lease on a host the list now covers
// is told at once that its lease is over (revokeLease); should the word
// not reach it, its next renewal is refused.
func (m *Manager) OptOut(names []string, by string) ([]operator.OptedOut, error) {
	for _, n := range names {
		if _, _, err := channels.ParseOptOut(n); err != nil {
			return nil, err
		}
	}
	now := m.opts.Now()
	var out []operator.OptedOut
	for _, n := range names {
		res, err := m.db.AddOptOut(n, by, now)
		if err != nil {
			return out, err
		}
		o := operator.OptedOut{Name: res.OptOut.Name, Domain: res.OptOut.Domain, Known: res.Known, Channels: res.Channels}
		for _, t := range res.Ended {
			if t.Holder == "" || t.Released {
				continue // not claimed, or its holder stopped: its claim is refused
			}
			p, err := peer.Decode(t.Holder)
			if err != nil {
				continue
			}
			m.revokeLease(p, t)
			o.Stopped = append(o.Stopped, t.ID)
		}
		m.log.Info("Site opted out", "name", o.Name, "domain", o.Domain, "by", by, "known", o.Known,
			"channels_removed", len(o.Channels), "crawls_stopped", len(o.Stopped))
		out = append(out, o)
	}
	return out, nil
}

// OptIn takes names off the opt-out list and reports which were on it.
// The channels their opt-outs removed stay removed until a seed brings
// them back.
func (m *Manager) OptIn(names []string) ([]string, error) {
	for _, n := range names {
		if _, _, err := channels.ParseOptOut(n); err != nil {
			return nil, err
		}
	}
	var lifted []string
	for _, n := range names {
		found, err := m.db.RemoveOptOut(n)
		if err != nil {
			return lifted, err
		}
		if found {
			name, _, _ := channels.ParseOptOut(n)
			lifted = append(lifted, name)
			m.log.Info("Opt-out lifted", "name", name)
		}
	}
	return lifted, nil
}

// OptOuts returns the opt-out list.
func (m *Manager) OptOuts() ([]channels.OptOut, error) { return m.db.OptOuts() }

// How long, and how often, the manager tries to tell a crawler that one
// of its leases ended: within the minute an opt-out promises, after
// which the refusal of the crawler's renewal is all that is left.
const (
	revokeLeaseFor   = 50 * time.Second
	revokeLeaseRetry = 5 * time.Second
)

// revokeLease tells crawler p, in the background, that its lease on
// task t is over because t's site opted out, so that it stops before its
// next request to the host rather than at its next renewal (up to
// LeaseHold/3 later). It tries again for revokeLeaseFor while p is not
// reached, and gives up when the manager closes (m.bg).
func (m *Manager) revokeLease(p peer.ID, t channels.Task) {
	r := lease.Revocation{Reason: "the site " + t.Host + " opted out of this crawler", TaskID: t.ID, Host: t.Host}
	go func() {
		ctx, cancel := context.WithTimeout(m.bg, revokeLeaseFor)
		defer cancel()
		for {
			err := lease.Revoke(ctx, m.host, p, r)
			if err == nil {
				m.log.Info("Crawler told its lease is over", "peer", p, "task", t.ID, "host", t.Host)
				return
			}
			select {
			case <-ctx.Done():
				m.log.Info("Crawler not told its lease is over; its next renewal is refused", "peer", p, "task", t.ID, "err", err)
				return
			case <-time.After(revokeLeaseRetry):
			}
		}
	}()
}
