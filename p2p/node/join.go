package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/core/protocol"
	ma "github.com/multiformats/go-multiaddr"
)

// joinRetries is how often a join starts over after a peer could not route.
const joinRetries = 5

func protocolID(s string) protocol.ID { return protocol.ID(s) }

// Join places the node at its point: it asks entry, follows redirects
// towards the point's owner and takes the zone the owner hands over. A
// node that holds a zone already (another join got there first) returns at
// once.
func (n *Node) Join(ctx context.Context, entry peer.AddrInfo) error {
	n.joinMu.Lock()
	defer n.joinMu.Unlock()
	n.mu.Lock()
	if len(n.zones) > 0 {
		n.mu.Unlock()
		return nil // another join got there first
	}
	req := &wire.JoinRequest{Point: append([]float64(nil), n.cfg.Point...), Joiner: n.selfLocked()}
	n.mu.Unlock()
	next := entry
	retries := 0
	visited := map[peer.ID]bool{}
	var again peer.ID // a peer asked again after an unanswered request
	for hop := 0; hop < DefaultMaxJoinHops; hop++ {
		visited[next.ID] = true
		resp, err := n.askJoin(ctx, next, req)
		if err != nil && (next.ID == entry.ID || retries == joinRetries) {
			return fmt.Errorf("%w: %w", ErrJoinFailed, err)
		}
		// A redirect to ourselves: the owner still thinks we hold the
		// point (our earlier join's answer was lost, or we lost the zone).
		loop := err == nil && resp.Redirect != nil && (visited[peer.ID(resp.Redirect.Id)] || peer.ID(resp.Redirect.Id) == n.h.ID())
		if (err != nil || loop || resp.Error == can.ErrNoRoute.Error()) && retries < joinRetries {
			// A neighbour table lags a recent change (a redirect to a peer
			// that crashed, no route, or stale zones sending us in a
			// circle): wait for a heartbeat round and start over from the
			// entry.
			retries++
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w: %w", ErrJoinFailed, ctx.Err())
			case <-time.After(n.cfg.Heartbeat):
			}
			if err != nil && next.ID != again {
				// The request may have reached the owner and only the
				// answer been lost: the owner hands the same zone again.
				again = next.ID
			} else {
				next = entry
			}
			clear(visited)
			continue
		}
		if resp.Error != "" {
			return fmt.Errorf("%w: %s refused: %s", ErrJoinFailed, next.ID, resp.Error)
		}
		if resp.Redirect != nil {
			next.ID, next.Addrs = peerAddrs(resp.Redirect)
			continue
		}
		zones, ok := fromWireZones(resp.Zones, n.cfg.Dim)
		if !ok || len(zones) == 0 {
			return fmt.Errorf("%w: %s handed over a malformed zone", ErrJoinFailed, next.ID)
		}
		zones = merge(zones)
		n.mu.Lock()
		n.zones = zones
		n.lost = time.Time{}
		n.farewell = nil
		// A heartbeat the owner built before it split its zone for us
		// still claims what it handed us; applied after this answer, the
		// overlap rule would give the zone back to a smaller peer ID
		// that no longer holds it. It is ignored as a leaver's is.
		n.handers[next.ID] = handed{zones: zones, at: time.Now()}
		for _, p := range resp.Neighbours {
			n.learnLocked(p, p.GetId() != nil && peer.ID(p.Id) == next.ID)
		}
		n.pruneLocked()
		n.mu.Unlock()
		n.log.Debug("Joined the overlay", "zones", fmt.Sprint(zones), "hops", hop, "neighbours", len(resp.Neighbours))
		n.poke()
		return nil
	}
	return fmt.Errorf("%w: no owner within %d redirects", ErrJoinFailed, DefaultMaxJoinHops)
}

func (n *Node) askJoin(ctx context.Context, to peer.AddrInfo, req *wire.JoinRequest) (*wire.JoinResponse, error) {
	if len(to.Addrs) > 0 {
		n.h.Peerstore().AddAddrs(to.ID, to.Addrs, 0)
	}
	if err := n.h.Connect(ctx, to); err != nil {
		return nil, fmt.Errorf("connect %s: %w", to.ID, err)
	}
	s, err := n.h.NewStream(wire.AllowRelayed(ctx), to.ID, wire.JoinProtocol)
	if err != nil {
		return nil, fmt.Errorf("join via %s: %w", to.ID, err)
	}
	defer s.Close()
	var resp wire.JoinResponse
	if err := wire.NewConn(s, wire.MaxJoinResponseSize).Exchange(ctx, req, wire.MaxJoinRequestSize, &resp); err != nil {
		s.Reset()
		return nil, fmt.Errorf("join via %s: %w", to.ID, err)
	}
	return &resp, nil
}

// learnLocked adds the peer p describes as a neighbour when its zones abut
// ours; direct marks a peer we heard from ourselves.
func (n *Node) learnLocked(p *wire.Peer, direct bool) {
	id, addrs := peerAddrs(p)
	if id == "" || id == n.h.ID() {
		return
	}
	if at, gone := n.gone[id]; gone && !direct {
		if time.Since(at) < n.goneFor() {
			if zones, ok := fromWireZones(p.Zones, n.cfg.Dim); ok && overlapsAny(n.zones, zones) {
				// Taken for dead, yet said to hold part of our area: two
				// peers that each took the other for dead take each other's
				// zones over. Only its own answer tells.
				n.probeLocked(id, addrs)
			}
			return
		}
		delete(n.gone, id)
	}
	zones, ok := fromWireZones(p.Zones, n.cfg.Dim)
	if !ok || len(zones) == 0 {
		return
	}
	if !direct && overlapsAny(n.zones, zones) {
		// Hearsay may be stale, so an overlapping claim is believed only
		// from the peer itself: probe it, and the overlap is settled when
		// its heartbeat says so (onHeartbeat), even when no heartbeat
		// would otherwise pass between us.
		n.probeLocked(id, addrs)
		return
	}
	if !abutsAny(n.zones, zones) {
		return
	}
	if nb, known := n.nbrs[id]; known && !direct {
		if nb.direct {
			return // what it told us itself beats hearsay
		}
	} else if !known && !direct && n.hearsayLocked() >= maxHearsay {
		return // a peer's lists may be made up: they fill no more than this
	}
	var l can.Load
	if p.Load != nil {
		l = can.Load{RTL: p.Load.Rtl, RPL: p.Load.Rpl}
	}
	n.upsertLocked(id, addrs, zones, l, direct)
}

// maxHearsay bounds the neighbours known only from other peers' lists. A
// zone has a few dozen neighbours at most; a peer listing thousands of
// made-up ones would otherwise have this node heartbeat them all, and
// remember each as gone.
const maxHearsay = 64

// hearsayLocked counts the neighbours known only second-hand.
func (n *Node) hearsayLocked() int {
	c := 0
	for _, nb := range n.nbrs {
		if !nb.direct {
			c++
		}
	}
	return c
}

// probeLocked asks the next heartbeat round to heartbeat id once, unless it
// was probed recently or is a neighbour anyway.
func (n *Node) probeLocked(id peer.ID, addrs []ma.Multiaddr) {
	if _, known := n.nbrs[id]; known {
		return
	}
	if at, ok := n.probes[id]; ok && (at.IsZero() || time.Since(at) < n.probeEvery()) {
		return
	}
	if len(addrs) > 0 {
		n.h.Peerstore().AddAddrs(id, addrs, peerstore.RecentlyConnectedAddrTTL)
	}
	n.probes[id] = time.Time{}
}

func (n *Node) handleJoin(s network.Stream) {
	var req wire.JoinRequest
	n.serve(s, "Join request", &req, wire.MaxJoinRequestSize, wire.MaxJoinResponseSize, func(_ context.Context, from peer.ID) wire.Message {
		return n.join(&req, from)
	})
}

// join answers a join request: redirect, refuse or hand over a zone.
func (n *Node) join(req *wire.JoinRequest, from peer.ID) *wire.JoinResponse {
	joiner, addrs := peerAddrs(req.Joiner)
	if joiner != from {
		return &wire.JoinResponse{Error: "joiner record names another peer"}
	}
	if len(req.Point) != n.cfg.Dim {
		return &wire.JoinResponse{Error: fmt.Sprintf("point has %d dimensions, overlay uses %d", len(req.Point), n.cfg.Dim)}
	}
	point := can.Point(req.Point)
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.leaving:
		return &wire.JoinResponse{Error: ErrLeaving.Error()}
	case len(n.zones) == 0:
		return &wire.JoinResponse{Error: ErrNotJoined.Error()}
	}
	if nb, known := n.nbrs[joiner]; known && len(req.Joiner.GetZones()) == 0 && n.joiningLocked(nb) {
		// We handed it a zone a moment ago and it asks again: our answer
		// was lost. It gets the same zone; a new split would leave the
		// first one to nobody.
		n.log.Debug("Handed a zone again to a joiner that lost the answer", "joiner", joiner.String())
		// The window runs from the first answer: a joiner that read it
		// and lost the zone since (an overlap settlement) must not be
		// handed it again and again.
		handed := nb.handed
		resp := n.handLocked(joiner, addrs, nb.zones)
		nb.handed = handed
		return resp
	}
	next, local, ok := can.NextHop(n.zones, n.infosLocked(), point)
	if !local {
		if !ok {
			return &wire.JoinResponse{Error: can.ErrNoRoute.Error()}
		}
		return &wire.JoinResponse{Redirect: n.recordLocked(n.nbrs[peer.ID(next)])}
	}
	if joiner == n.h.ID() {
		return &wire.JoinResponse{Error: "peer is already in the overlay"}
	}
	if _, known := n.nbrs[joiner]; known {
		if len(req.Joiner.GetZones()) > 0 {
			return &wire.JoinResponse{Error: "peer is already in the overlay"}
		}
		// It lost its zones (an overlap settlement) or left, and our
		// record of it lags.
		n.removeLocked(joiner)
	}
	idx := -1
	for i, z := range n.zones {
		if z.Contains(point) {
			idx = i
		}
	}
	var give can.Zone
	if g, kept, ok := n.keepPointLocked(idx, point); ok {
		// Placed at its coordinate, this node keeps the piece with its own
		// point: a peer holds the point its coordinate maps to, whoever
		// joins near it later.
		give = g
		n.zones = append(append(n.zones[:idx:idx], n.zones[idx+1:]...), kept...)
	} else if len(n.zones) > 1 {
		// Holding several zones (after a takeover): give one away whole.
		give = n.zones[idx]
		n.zones = append(n.zones[:idx:idx], n.zones[idx+1:]...)
	} else {
		lo, hi := n.zones[idx].Split()
		give, n.zones[idx] = lo, hi
		if !lo.Contains(point) {
			give, n.zones[idx] = hi, lo
		}
	}
	n.log.Debug("Handed a zone to a joiner", "joiner", joiner.String(), "zone", give.String())
	return n.handLocked(joiner, addrs, []can.Zone{give})
}

// keepDepth bounds the halvings that part a placed node's point from a
// joiner's, and keepZones the zones it may hold after them.
const (
	keepDepth = 12
	keepZones = 16
)

// keepPointLocked splits zone idx, which holds the joiner's point, so
// that the node keeps its own point when it is placed at its coordinate
// and the point lies in that zone too (can.Zone.SplitApart); ok is false
// when that does not apply. n.mu must be held.
func (n *Node) keepPointLocked(idx int, point can.Point) (give can.Zone, kept []can.Zone, ok bool) {
	z := n.zones[idx]
	if !n.placed || !z.Contains(n.cfg.Point) {
		return can.Zone{}, nil, false
	}
	give, kept, ok = z.SplitApart(n.cfg.Point, point, keepDepth)
	if !ok || len(n.zones)-1+len(kept) > keepZones {
		return can.Zone{}, nil, false
	}
	return give, kept, true
}

// handLocked answers a join with the zones given, which this node no
// longer holds, and the neighbours the joiner needs; n.mu must be held.
func (n *Node) handLocked(joiner peer.ID, addrs []ma.Multiaddr, given []can.Zone) *wire.JoinResponse {
	resp := &wire.JoinResponse{Zones: toWireZones(given)}
	for id, nb := range n.nbrs {
		if id != joiner && abutsAny(given, nb.zones) && len(resp.Neighbours) < wire.MaxNeighbours-1 {
			resp.Neighbours = append(resp.Neighbours, n.recordLocked(nb))
		}
	}
	resp.Neighbours = append(resp.Neighbours, n.selfLocked())
	delete(n.gone, joiner)
	n.upsertLocked(joiner, addrs, given, can.Load{}, true).handed = time.Now()
	n.pruneLocked()
	n.poke() // never blocks, so safe under n.mu
	return resp
}

// goneFor is how long a peer that left or died is not re-learned from
// others' lists, which may lag its departure by a few heartbeats.
func (n *Node) goneFor() time.Duration {
	return time.Duration(4*n.cfg.DeadAfter) * n.cfg.Heartbeat
}

// checkLost rejoins at the node's point when an overlap settlement took its
// last zone, through the peers it heard from most recently (the one that
// took the area among them). No age limit: once zone-less it hears from
// nobody, and an old entry beats none.
func (n *Node) checkLost(ctx context.Context) error {
	n.mu.Lock()
	if n.lost.IsZero() || len(n.zones) > 0 || n.leaving {
		n.mu.Unlock()
		return nil
	}
	type entry struct {
		id peer.ID
		at time.Time
	}
	var entries []entry
	for id, at := range n.heard {
		entries = append(entries, entry{id, at})
	}
	n.mu.Unlock()
	slices.SortFunc(entries, func(a, b entry) int { return b.at.Compare(a.at) })
	if len(entries) == 0 {
		return fmt.Errorf("no peer known to rejoin through")
	}
	var errs []error
	for _, e := range entries[:min(len(entries), 3)] {
		err := n.Join(ctx, peer.AddrInfo{ID: e.id, Addrs: n.h.Peerstore().Addrs(e.id)})
		if err == nil {
			n.log.Info("Rejoined after losing every zone", "via", e.id.String())
			return nil
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
