package node

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
)

// Gaps. Neighbour tables are kept by heartbeats, joins, farewells and
// takeovers, each of which tells the peers it reaches. When several peers
// move at once, one of them can end up holding an area whose other
// neighbours none of those messages reached: two peers whose zones abut
// and that do not know each other, or two that claim one area and never
// exchange a heartbeat to settle it. Each stays so for good, and greedy
// routing can find no way through.
//
// So every peer checks, every few rounds, that the whole boundary of its
// zones inside the space is covered by zones it knows: its own, its
// neighbours' (first- or second-hand) and those of dead neighbours
// awaiting an heir. Across a part that is not, it looks up the owner of a
// point just outside (the lookup protocol: a best-first search through the
// peers nearest the point, answered first-hand by the owner) and heartbeats it at the next
// round, which makes it a neighbour, or settles an overlap. Whatever the
// messages that were lost, the tables converge to the zones as they are.
//
// A lookup that every peer asked answers, none holding the point, may have
// found an area nobody holds (a zone lost when a handover, a farewell and
// a takeover crossed), or only the edge of what this peer's part of the
// overlay knows. It is counted and logged, not claimed: a claim made from
// such a partial view made two groups of peers each hold the whole space,
// each group unaware of the other, in a stress of concurrent moves.

// gapSlab is the width of the thin box laid just outside a face of a zone
// to find what lies across it. Zones are halves of halves, so their faces
// lie on multiples of a power of two, and a box this thin lies within the
// zones across unless one is thinner still (thirty splits along one axis).
const gapSlab = 1.0 / (1 << 30)

// gapEvery is how many heartbeat intervals pass between two gap checks. A
// gap must be found at two checks in a row before it is looked up: right
// after a split, a join or a takeover, a neighbour's news is still on its
// way.
const gapEvery = 3

// maxLookupAsks bounds the peers one lookup asks.
const maxLookupAsks = 16

// uncovered returns the parts of box b that none of zs covers, as boxes:
// b need not be a zone (made by halving), nor are the parts.
func uncovered(b can.Zone, zs []can.Zone) []can.Zone {
	return minusAll([]can.Zone{b}, zs, boxMinus)
}

// boxMinus returns box a without box b, as at most two boxes a dimension.
func boxMinus(a, b can.Zone) []can.Zone {
	if !can.Overlaps(a, b) {
		return []can.Zone{a}
	}
	var out []can.Zone
	rest := can.Zone{Lo: slices.Clone(a.Lo), Hi: slices.Clone(a.Hi)}
	for i := range a.Lo {
		if rest.Lo[i] < b.Lo[i] {
			piece := can.Zone{Lo: slices.Clone(rest.Lo), Hi: slices.Clone(rest.Hi)}
			piece.Hi[i] = b.Lo[i]
			out, rest.Lo[i] = append(out, piece), b.Lo[i]
		}
		if rest.Hi[i] > b.Hi[i] {
			piece := can.Zone{Lo: slices.Clone(rest.Lo), Hi: slices.Clone(rest.Hi)}
			piece.Lo[i] = b.Hi[i]
			out, rest.Hi[i] = append(out, piece), b.Hi[i]
		}
	}
	return out // what is left of rest lies inside b
}

// gapLocked returns a point just outside this node's zones, across a part
// of their boundary inside the space that no known zone covers, if there
// is one. n.mu must be held.
func (n *Node) gapLocked() (can.Point, bool) {
	known := n.knownZonesLocked()
	for _, z := range n.zones {
		for i := range z.Lo {
			for _, upper := range []bool{false, true} {
				slab := can.Zone{Lo: slices.Clone(z.Lo), Hi: slices.Clone(z.Hi)}
				switch {
				case !upper && z.Lo[i] > 0:
					slab.Lo[i], slab.Hi[i] = max(0, z.Lo[i]-gapSlab), z.Lo[i]
				case upper && z.Hi[i] < 1:
					slab.Lo[i], slab.Hi[i] = z.Hi[i], min(1, z.Hi[i]+gapSlab)
				default:
					continue // the space's own boundary
				}
				if rest := uncovered(slab, known); len(rest) > 0 {
					return rest[0].Centre(), true
				}
			}
		}
	}
	return nil, false
}

// knownZonesLocked returns every zone this node knows to be held or
// awaiting an heir: its own, its neighbours', dead neighbours'. n.mu must
// be held.
func (n *Node) knownZonesLocked() []can.Zone {
	known := slices.Clone(n.zones)
	for _, nb := range n.nbrs {
		known = append(known, nb.zones...)
	}
	for _, d := range n.dead {
		known = append(known, d.zones...)
	}
	return known
}

// checkGaps looks up the owner of a gap in this node's boundary found at
// the previous check too, and has it heartbeated at the next round.
func (n *Node) checkGaps(ctx context.Context, now time.Time) {
	n.mu.Lock()
	if n.leaving || len(n.zones) == 0 || now.Sub(n.gapChecked) < gapEvery*n.cfg.Heartbeat {
		n.mu.Unlock()
		return
	}
	n.gapChecked = now
	p, found := n.gapLocked()
	seenBefore := n.gapSeen
	n.gapSeen = found
	n.mu.Unlock()
	if !found || !seenBefore {
		return
	}
	res := n.lookup(ctx, p)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stats.GapLookups++
	if res.owner == nil {
		if res.err == nil && res.asked > 0 {
			n.stats.GapsUnheld++
			n.log.Info("No peer asked holds an area next to this peer's zones", "point", fmt.Sprint(p), "asked", res.asked)
			return
		}
		n.log.Debug("Owner of a gap in the boundary not found", "point", fmt.Sprint(p), "asked", res.asked, "err", res.err)
		return
	}
	id, addrs := peerAddrs(res.owner)
	n.log.Debug("Found the owner of a gap in the boundary", "point", fmt.Sprint(p), "owner", id.String())
	n.stats.GapsFound++
	delete(n.gone, id) // it answered for itself: alive, and holding the point
	n.learnLocked(res.owner, false)
	if _, known := n.nbrs[id]; !known {
		n.probeLocked(id, addrs)
	}
	n.poke()
}

// lookupResult is what a lookup found: the owner's own record, or none,
// with how many peers were asked. err says why a peer asked may still
// hold the point: it did not answer, it is leaving (and
// holds its zones until its heir has them), or it answered for a point it
// does not hold. A peer that answers it holds no zone does not.
type lookupResult struct {
	owner *wire.Peer
	asked int
	err   error
}

// lookup asks for the owner of point p. It asks the peer it knows nearest
// the point (by their zones as last announced), then the nearest of those
// it and every later peer names, best first: greedy routing fails where
// no neighbour is strictly nearer than the peer itself, a best-first
// search goes round.
func (n *Node) lookup(ctx context.Context, p can.Point) lookupResult {
	// A candidate's distance is decoded once, when it is first named.
	type cand struct {
		rec  *wire.Peer
		dist float64
	}
	var frontier []cand
	asking := -1 // frontier[asking+1:] is still to be asked
	named := map[peer.ID]bool{n.h.ID(): true}
	add := func(r *wire.Peer) {
		id, d := peer.ID(r.Id), n.distance(r, p)
		if !named[id] {
			named[id] = true
			frontier = append(frontier, cand{r, d})
			return
		}
		// Named again: a record that puts it nearer counts, if it is
		// still to be asked.
		if i := slices.IndexFunc(frontier[asking+1:], func(c cand) bool { return peer.ID(c.rec.Id) == id }); i >= 0 {
			if c := &frontier[asking+1+i]; d < c.dist {
				*c = cand{r, d}
			}
		}
	}
	n.mu.Lock()
	for _, r := range n.nearestLocked(p, wire.MaxLookupNearer) {
		add(r)
	}
	// After them, peers whose zones we do not know: those heard from
	// lately, those gone from our table and those we are connected to.
	// A few peers whose tables name only each other (an island left by
	// moves and settlements) find the rest of the overlay through them.
	var others []peer.ID
	for id := range n.heard {
		others = append(others, id)
	}
	for id := range n.gone {
		others = append(others, id)
	}
	n.mu.Unlock()
	for _, id := range append(others, n.h.Network().Peers()...) {
		add(&wire.Peer{Id: []byte(id)})
	}
	var (
		res  lookupResult
		errs []error
	)
	for asking = 0; asking < maxLookupAsks && asking < len(frontier) && ctx.Err() == nil; asking++ {
		res.asked = asking + 1
		id, addrs := peerAddrs(frontier[asking].rec)
		if len(addrs) > 0 {
			n.h.Peerstore().AddAddrs(id, addrs, peerstore.RecentlyConnectedAddrTTL)
		}
		resp, err := n.askLookup(ctx, id, p)
		switch {
		case err != nil:
			errs = append(errs, err)
			continue
		case resp.Owner != nil:
			owner, _ := peerAddrs(resp.Owner)
			zones, ok := fromWireZones(resp.Owner.Zones, n.cfg.Dim)
			if owner != id || !ok || !holds(zones, p) {
				errs = append(errs, fmt.Errorf("%s answered for a point it does not hold", id))
				continue
			}
			res.owner = resp.Owner
			return res
		case resp.Error == ErrNotJoined.Error():
			continue // holds nothing
		case resp.Error != "":
			errs = append(errs, fmt.Errorf("%s: %s", id, resp.Error))
			continue
		}
		for _, r := range resp.Nearer {
			add(r)
		}
		// Those not yet asked, nearest first.
		slices.SortStableFunc(frontier[asking+1:], func(a, b cand) int { return cmp.Compare(a.dist, b.dist) })
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, fmt.Errorf("lookup stopped: %w", err))
	}
	res.err = errors.Join(errs...)
	return res
}

// nearestLocked returns the records of up to k peers this node knows,
// neighbours and the peers their lists name, whose zones lie nearest p,
// nearest first. n.mu must be held.
func (n *Node) nearestLocked(p can.Point, k int) []*wire.Peer {
	recs := map[peer.ID]*wire.Peer{}
	for _, nb := range n.nbrs {
		for _, r := range nb.nbrs {
			id, _ := peerAddrs(r)
			if _, gone := n.gone[id]; id != "" && id != n.h.ID() && !gone {
				recs[id] = r
			}
		}
	}
	for id, nb := range n.nbrs {
		recs[id] = n.recordLocked(nb) // what it said itself beats hearsay
	}
	// Each record's zones are decoded once, not at every comparison.
	type near struct {
		rec  *wire.Peer
		dist float64
	}
	all := make([]near, 0, len(recs))
	for _, r := range recs {
		all = append(all, near{r, n.distance(r, p)})
	}
	slices.SortFunc(all, func(a, b near) int {
		if c := cmp.Compare(a.dist, b.dist); c != 0 {
			return c
		}
		return bytes.Compare(a.rec.Id, b.rec.Id)
	})
	out := make([]*wire.Peer, min(len(all), k))
	for i := range out {
		out[i] = all[i].rec
	}
	return out
}

// distance is the squared distance from p to the nearest zone r names.
func (n *Node) distance(r *wire.Peer, p can.Point) float64 {
	zones, ok := fromWireZones(r.Zones, n.cfg.Dim)
	if !ok || len(zones) == 0 {
		return math.Inf(1)
	}
	d := math.Inf(1)
	for _, z := range zones {
		d = min(d, z.Dist2(p))
	}
	return d
}

func (n *Node) askLookup(ctx context.Context, to peer.ID, p can.Point) (*wire.LookupResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*n.cfg.Heartbeat)
	defer cancel()
	s, err := n.h.NewStream(wire.AllowRelayed(ctx), to, wire.LookupProtocol)
	if err != nil {
		return nil, fmt.Errorf("lookup via %s: %w", to, err)
	}
	defer s.Close()
	var resp wire.LookupResponse
	if err := wire.NewConn(s, wire.MaxLookupResponseSize).Exchange(ctx, &wire.LookupRequest{Point: p}, wire.MaxLookupRequestSize, &resp); err != nil {
		s.Reset()
		return nil, fmt.Errorf("lookup via %s: %w", to, err)
	}
	return &resp, nil
}

func (n *Node) handleLookup(s network.Stream) {
	var req wire.LookupRequest
	n.serve(s, "Lookup", &req, wire.MaxLookupRequestSize, wire.MaxLookupResponseSize, func(context.Context, peer.ID) wire.Message {
		return n.answerLookup(req.Point)
	})
}

// answerLookup names this node as the owner of point, or the peers it
// knows nearest it.
func (n *Node) answerLookup(point []float64) *wire.LookupResponse {
	if len(point) != n.cfg.Dim {
		return &wire.LookupResponse{Error: fmt.Sprintf("point has %d dimensions, overlay uses %d", len(point), n.cfg.Dim)}
	}
	p := can.Point(point)
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.leaving:
		return &wire.LookupResponse{Error: ErrLeaving.Error()}
	case len(n.zones) == 0:
		return &wire.LookupResponse{Error: ErrNotJoined.Error()}
	case holds(n.zones, p):
		return &wire.LookupResponse{Owner: n.selfLocked()}
	}
	if near := n.nearestLocked(p, wire.MaxLookupNearer); len(near) > 0 {
		return &wire.LookupResponse{Nearer: near}
	}
	return &wire.LookupResponse{Error: "no peer known"}
}
