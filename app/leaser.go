package app

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/domain"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/proto/lease"
)

// networkLeaser claims, renews and releases host leases with the network's
// manager (taskmgr.Leaser over proto/lease).
type networkLeaser struct {
	nw *network
	// botKey is the public key this client signs HTTP requests with; the
	// manager certifies it in its key directory at the first claim.
	botKey []byte
}

var _ taskmgr.Leaser = networkLeaser{}

// Claim claims r's lease, sending its signed envelope and the addresses
// its host resolves to: the manager keeps to its caps per address.
func (l networkLeaser) Claim(ctx context.Context, r *queue.Record) (taskmgr.Grant, error) {
	addrs := hostAddrs(ctx, net.DefaultResolver, r.Task.Host())
	return l.send(ctx, lease.Request{Op: lease.Claim, Task: r.Raw, Proof: r.Proof, TaskID: r.ID, Epoch: r.Task.Lease.Epoch, BotKey: l.botKey, Addrs: addrs, Version: l.nw.version})
}

// resolveTimeout bounds the look-up of a host's addresses before a claim.
const resolveTimeout = 5 * time.Second

// hostAddrs returns the IP addresses host (host[:port]) resolves to, at
// most lease.MaxAddrs, or none when it does not resolve: the crawl then
// fails on its own, and the claim goes without them.
func hostAddrs(ctx context.Context, res *net.Resolver, host string) []string {
	name := domain.Hostname(host)
	if a, err := netip.ParseAddr(name); err == nil {
		return []string{a.Unmap().String()}
	}
	if name == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	ips, err := res.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range ips {
		if s := a.Unmap().String(); len(out) < lease.MaxAddrs && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Renew renews r's lease with the crawl's progress.
func (l networkLeaser) Renew(ctx context.Context, r *queue.Record, p taskmgr.Progress) (taskmgr.Grant, error) {
	return l.send(ctx, lease.Request{Op: lease.Renew, TaskID: r.ID, Epoch: r.Task.Lease.Epoch,
		Pages: p.Pages, Requests: p.Requests, Wait: p.Wait})
}

// Release gives r's lease up, with the crawl's progress (the wait its
// host asked for, which the heir keeps).
func (l networkLeaser) Release(ctx context.Context, r *queue.Record, p taskmgr.Progress) error {
	_, err := l.send(ctx, lease.Request{Op: lease.Release, TaskID: r.ID, Epoch: r.Task.Lease.Epoch,
		Pages: p.Pages, Requests: p.Requests, Wait: p.Wait})
	return err
}

// send maps the protocol's refusals to the task manager's.
func (l networkLeaser) send(ctx context.Context, req lease.Request) (taskmgr.Grant, error) {
	a, err := lease.Send(ctx, l.nw.h, l.nw.manager, req)
	if a.Outdated != "" {
		// The claim's refusal binds whatever the entry exchange said.
		l.nw.noteOutdated(a.Outdated)
	}
	if a.Withdrawn != "" {
		// Every lease is over, not only this one: the revocation that
		// should have come first did not arrive.
		l.nw.withdraw(a.Withdrawn)
	}
	switch {
	case err == nil:
		return taskmgr.Grant{Expires: a.Expires, RenewEvery: a.RenewEvery}, nil
	case errors.Is(err, lease.ErrHeld):
		// The task manager caps the hint at its own pace
		// (taskmgr.claimRetry): a hint brings a claim forward, and a
		// manager cannot make a crawler wait longer with it.
		return taskmgr.Grant{}, &taskmgr.LeaseHeld{RetryIn: a.RetryIn, Err: err}
	case errors.Is(err, lease.ErrOver):
		return taskmgr.Grant{}, errors.Join(taskmgr.ErrLeaseOver, err)
	}
	return taskmgr.Grant{}, err
}
