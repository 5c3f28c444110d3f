package node

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/libp2p/go-libp2p/core/peer"
)

// manage makes the node's requests to the manager, one at a time, so that
// a slow manager never holds up heartbeats: a member without a zone joins
// again; certificates are renewed every Config.Renew; silent neighbours
// are reported; a drifted coordinate moves the node (drift.go).
func (n *Node) manage(ctx context.Context) {
	t := time.NewTicker(n.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n.mu.Lock()
		member, leaving, zoneless := n.member, n.leaving, len(n.zones) == 0
		due := time.Since(n.renewed) >= n.cfg.Renew
		if time.Now().Before(n.quietUntil) {
			n.mu.Unlock()
			continue
		}
		var report []peer.ID
		for id := range n.suspects {
			if time.Since(n.reported[id]) >= n.cfg.Renew {
				report = append(report, id)
			}
			delete(n.suspects, id)
		}
		p := slices.Clone(n.cfg.Point)
		if n.elsewhere != nil {
			p = slices.Clone(n.elsewhere)
		}
		n.mu.Unlock()
		if !member || leaving {
			continue
		}
		switch {
		case zoneless:
			n.rejoin(ctx, p)
		case due:
			n.renew(ctx, p)
		}
		for _, id := range report {
			n.report(ctx, id)
		}
		if err := n.checkDrift(ctx); err != nil {
			n.mu.Lock()
			n.failedLocked("Moving to the mapped coordinate failed", err)
			n.mu.Unlock()
		}
	}
}

// rejoin asks for a zone at p again.
func (n *Node) rejoin(ctx context.Context, p can.Point) {
	err := n.ask(ctx, zonecert.Request{Op: zonecert.OpJoin, Point: p})
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.failedLocked("Joining again failed", err)
		n.tooDeepLocked(err)
		return
	}
	n.renewed = time.Now()
	n.stats.Rejoins++
	n.poke()
}

// renew extends the node's certificates, joining again at p when the
// manager holds none for it.
func (n *Node) renew(ctx context.Context, p can.Point) {
	err := n.ask(ctx, zonecert.Request{Op: zonecert.OpRenew})
	if errors.Is(err, zonecert.ErrRejoin) {
		n.log.Info("The manager holds no zone for this peer; joining again", "err", err)
		n.rejoin(ctx, p)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.failedLocked("Renewing the zone certificates failed", err)
		return
	}
	n.renewed = time.Now()
	n.stats.Renewals++
}

// failedLocked notes a request to the manager that failed: the next waits
// half a renewal interval, so that a manager that is down or busy is not
// asked every heartbeat by every peer. n.mu must be held.
func (n *Node) failedLocked(what string, err error) {
	n.quietUntil = time.Now().Add(n.cfg.Renew / 2)
	n.log.Info(what+"; asking again in a while", "err", err, "in", n.cfg.Renew/2)
}

// report tells the manager that neighbour id stopped answering; the
// manager checks it and, if it is gone, gives its zones to their heirs,
// which the grant certifies.
func (n *Node) report(ctx context.Context, id peer.ID) {
	n.mu.Lock()
	n.reported[id] = time.Now()
	n.stats.Reports++
	n.mu.Unlock()
	if err := n.ask(ctx, zonecert.Request{Op: zonecert.OpReport, Suspect: id}); err != nil {
		n.log.Info("Report of a silent neighbour not taken", "neighbour", id.String(), "err", err)
		return
	}
	n.log.Info("Reported a silent neighbour to the manager", "neighbour", id.String())
	n.poke()
}

// tooDeepLocked picks another point to join at when err says the zone at
// the node's point cannot split (many peers at one point): a random one.
// A move to its mapped coordinate (drift.go) replaces it. n.mu must be
// held.
func (n *Node) tooDeepLocked(err error) {
	if !errors.Is(err, zonecert.ErrTooDeep) {
		return
	}
	p := make(can.Point, n.cfg.Dim)
	for k := range p {
		p[k] = rand.Float64()
	}
	n.elsewhere = p
	n.log.Info("The zone at this peer's point cannot be split further; joining at another point", "point", p)
}
