package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// adoptLocked takes certificates into the book, each by the book's rule
// (signed by the manager, unexpired, the newest epoch for its zone), and
// brings the node's zones and neighbours up to date. It returns how many
// were refused. n.mu must be held.
func (n *Node) adoptLocked(certs []zonecert.Cert, now time.Time) int {
	refused := 0
	for _, c := range certs {
		gone, err := n.book.Supersede(c, now)
		for _, o := range gone {
			// Its holder's zones changed, and what it holds now may
			// abut ours: the next round asks it.
			if o.Holder != c.Holder && o.Holder != n.h.ID() {
				n.notify[o.Holder] = true
			}
		}
		if err != nil {
			refused++
			if !errors.Is(err, zonecert.ErrStale) && !errors.Is(err, zonecert.ErrExpired) {
				n.log.Info("Refused a zone certificate", "holder", c.Holder, "path", c.Path, "err", err)
			}
		}
	}
	n.stats.CertsRefused += int64(refused)
	n.refreshLocked(now)
	return refused
}

// adoptGrant takes a grant from the manager in.
func (n *Node) adoptGrant(g zonecert.Grant) {
	for _, ai := range g.Peers {
		if ai.ID != n.h.ID() && len(ai.Addrs) > 0 {
			n.h.Peerstore().AddAddrs(ai.ID, ai.Addrs, peerstore.RecentlyConnectedAddrTTL)
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	// What changed is news to the neighbours, before and after, and to
	// every holder the grant names (an heir learns here that it holds a
	// zone, before its own renewal): the next rounds carry these
	// certificates to all of them.
	for id := range n.nbrs {
		n.notify[id] = true
	}
	n.adoptLocked(g.Certs, time.Now())
	for _, c := range g.Certs {
		if c.Holder != n.h.ID() {
			n.notify[c.Holder] = true
		}
	}
	n.news, n.newsUntil = g.Certs, time.Now().Add(n.probeEvery())
	n.poke()
}

// refreshLocked derives the node's zones and neighbours from the book: it
// holds exactly the zones of its unexpired certificates, and its
// neighbours are the holders of certificates whose zones abut them. n.mu
// must be held.
func (n *Node) refreshLocked(now time.Time) {
	had := len(n.zones) > 0
	var nbrs map[peer.ID][]can.Zone
	n.own, nbrs = n.book.Around(n.h.ID(), n.cfg.Dim, now)
	n.zones = zonecert.Zones(n.own, n.cfg.Dim)
	for id, zones := range nbrs {
		nb, ok := n.nbrs[id]
		if !ok {
			nb = &neighbour{id: id}
			n.nbrs[id] = nb
			n.h.ProtectNeighbour(id)
			n.log.Debug("New neighbour", "neighbour", id.String(), "zones", fmt.Sprint(zones))
		}
		nb.zones = zones
	}
	for id := range n.nbrs {
		if _, ok := nbrs[id]; !ok {
			n.log.Debug("Neighbour dropped", "neighbour", id.String())
			n.removeLocked(id)
		}
	}
	if had && len(n.zones) == 0 && n.member && !n.leaving {
		n.log.Info("This peer holds no zone any more; joining again")
		n.poke()
	}
}

// heldCertsLocked returns the certificates a heartbeat carries: this
// node's, its neighbours' and, for a few rounds after a grant, what the
// grant changed, each as the book holds it now. n.mu must be held.
func (n *Node) heldCertsLocked(now time.Time) [][]byte {
	var out [][]byte
	sent := map[can.Path]bool{}
	add := func(c zonecert.Cert) {
		if len(out) == maxHeartbeatCerts || sent[c.Path] {
			return
		}
		if b, err := c.MarshalBinary(); err == nil {
			out = append(out, b)
			sent[c.Path] = true
		}
	}
	for _, c := range n.book.Certs(now) {
		if _, nb := n.nbrs[c.Holder]; nb || c.Holder == n.h.ID() {
			add(c)
		}
	}
	if now.Before(n.newsUntil) {
		for _, c := range n.news {
			if cur, ok := n.book.Holder(c.Path, now); ok {
				add(cur)
			}
		}
	}
	return out
}

// ownCertLocked returns this node's certificate of the zone holding p.
// n.mu must be held.
func (n *Node) ownCertLocked(p can.Point) (zonecert.Cert, bool) {
	for _, c := range n.own {
		if c.Path.Zone(n.cfg.Dim).Contains(p) {
			return c, true
		}
	}
	return zonecert.Cert{}, false
}

// maxHeartbeatCerts bounds the certificates one heartbeat carries, below
// wire.MaxCerts.
const maxHeartbeatCerts = 256

// ask sends one request to the Authority and adopts its grant.
func (n *Node) ask(ctx context.Context, req zonecert.Request) error {
	if n.cfg.Authority == nil {
		return fmt.Errorf("%s: no authority configured", req.Op)
	}
	ctx, cancel := context.WithTimeout(ctx, authorityTimeout)
	defer cancel()
	g, err := n.cfg.Authority.Zones(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", req.Op, err)
	}
	n.adoptGrant(g)
	return nil
}

// authorityTimeout bounds one request to the manager.
const authorityTimeout = 15 * time.Second
