package node

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	ma "github.com/multiformats/go-multiaddr"
)

// heartbeatLocked builds this node's heartbeat; n.mu must be held. A node
// without zones lists no neighbours, since a zone-less heartbeat with a
// list is a farewell naming the heir; after a graceful leave it repeats its
// farewell.
func (n *Node) heartbeatLocked() *wire.Heartbeat {
	n.seq++
	if len(n.zones) == 0 {
		if n.farewell != nil {
			return &wire.Heartbeat{Self: n.farewell.Self, Neighbours: n.farewell.Neighbours, Seq: n.seq}
		}
		return &wire.Heartbeat{Self: n.selfLocked(), Seq: n.seq}
	}
	return &wire.Heartbeat{Self: n.selfLocked(), Neighbours: n.neighbourRecordsLocked(true), Seq: n.seq}
}

// probeEvery is how many heartbeat intervals pass before a peer heard of
// second-hand is probed again.
func (n *Node) probeEvery() time.Duration {
	return time.Duration(n.cfg.DeadAfter) * n.cfg.Heartbeat
}

// sampleEvery is how many heartbeat intervals may pass without this node
// starting an exchange with a neighbour that keeps starting them: each
// exchange this node starts is a round-trip sample for its coordinate.
const sampleEvery = 4

// sampleWide is how many peers beyond its neighbours a node heartbeats
// each round while its coordinate rests on fewer than firstMoveSamples
// samples: its neighbours' neighbours. Neighbours alone gave a new peer a
// few samples a round, so in the swarm benchmark its first move, and the
// manager's bounds trained from settled coordinates, came more than a
// minute after joining; with these, about 40 s. Once the coordinate has
// its samples, the connections opened for them alone are closed.
const sampleWide = 6

// heartbeatRound exchanges heartbeats with the neighbours, with the wide
// sample (sampleWide) while the coordinate is young, and probes peers to
// be heard from first-hand, concurrently. One exchange carries
// both peers' news, so once this node's coordinate rests on
// firstMoveSamples samples, a neighbour whose own round reached us within
// the last interval and a half is skipped (unless all is set, or
// sampleEvery intervals passed since we last started one with it): a pair
// of peers exchanges about once an interval, not twice. Should that
// neighbour go quiet, the next round reaches it and counts the miss, an
// interval later than before at most. Before that, every exchange is a
// sample the coordinate still needs.
func (n *Node) heartbeatRound(ctx context.Context, all bool) {
	n.mu.Lock()
	if n.leaving || len(n.zones) == 0 {
		n.mu.Unlock()
		return
	}
	hb := n.heartbeatLocked()
	now := time.Now()
	young := n.viv.Samples() < firstMoveSamples
	all = all || young
	var (
		wide []peer.ID
		done []passing
	)
	if young {
		wide = n.wideLocked()
	} else {
		for id := range n.wide {
			if _, nb := n.nbrs[id]; !nb {
				n.passing[id] = now
			}
		}
		clear(n.wide)
	}
	for id, since := range n.passing {
		_, nb := n.nbrs[id]
		_, sampled := n.wide[id]
		if nb || sampled {
			delete(n.passing, id) // heartbeated anyway
			continue
		}
		done = append(done, passing{id, now.Sub(since) > n.passingFor()})
	}
	ids := make([]peer.ID, 0, len(n.nbrs))
	for id, nb := range n.nbrs {
		if !all && now.Sub(nb.asked) < n.cfg.Heartbeat*3/2 && now.Sub(nb.told) < sampleEvery*n.cfg.Heartbeat {
			continue
		}
		ids = append(ids, id)
	}
	var probes []peer.ID
	for id, at := range n.probes {
		switch _, known := n.nbrs[id]; {
		case known:
			delete(n.probes, id) // heartbeated anyway
		case at.IsZero():
			n.probes[id] = now
			probes = append(probes, id)
		case now.Sub(at) > n.probeEvery():
			delete(n.probes, id)
		}
	}
	for id, at := range n.heard {
		if now.Sub(at) > n.goneFor() {
			delete(n.heard, id)
		}
	}
	for id, at := range n.gone {
		if now.Sub(at) > n.goneFor() {
			delete(n.gone, id) // re-learned from lists again, as learnLocked would
		}
	}
	for id, h := range n.handers {
		if now.Sub(h.at) > n.goneFor() {
			delete(n.handers, id)
		}
	}
	for k, until := range n.left {
		if now.After(until) {
			delete(n.left, k)
		}
	}
	n.mu.Unlock()
	for _, p := range done {
		// Dialled only to sample or probe: an idle connection would count
		// against the volunteer's connection cap on both sides. One that
		// carries a stream (the peer measuring a host for a locator,
		// forwarding an insert) is closed when that is done, or after
		// passingFor.
		if n.closeIdle(p.id, p.force) {
			n.mu.Lock()
			delete(n.passing, p.id)
			n.mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for _, id := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer n.passedBy(id)
			resp, err := n.exchange(ctx, id, hb, false)
			if err != nil {
				n.log.Debug("Probe unanswered", "peer", id.String(), "err", err)
				return
			}
			n.onHeartbeat(resp, id)
		}()
	}
	for _, id := range wide {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The first exchange dials, and a dial's handshakes say
			// nothing of the distance: only later ones are samples.
			connected := n.h.Network().Connectedness(id) == network.Connected
			resp, err := n.exchange(ctx, id, hb, connected)
			if err != nil {
				n.mu.Lock()
				delete(n.wide, id)
				n.mu.Unlock()
				return
			}
			n.onHeartbeat(resp, id)
		}()
	}
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := n.exchange(ctx, id, hb, true)
			if err != nil {
				n.log.Debug("Heartbeat missed", "neighbour", id.String(), "err", err)
				n.missed(id)
				return
			}
			n.onHeartbeat(resp, id)
			n.mu.Lock()
			n.stats.Heartbeats++
			if nb, ok := n.nbrs[id]; ok {
				nb.told = time.Now()
			}
			n.mu.Unlock()
		}()
	}
	wg.Wait()
}

// passing is a peer dialled only to sample or probe, to close; force:
// whatever streams its connections carry.
type passing struct {
	id    peer.ID
	force bool
}

// passedBy notes a peer dialled to probe it for closing, unless the probe
// made it a neighbour.
func (n *Node) passedBy(id peer.ID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, nb := n.nbrs[id]; !nb {
		n.passing[id] = time.Now()
	}
}

// passingFor is how long a connection dialled only to sample or probe may
// stay open for the streams it carries: a stream that runs longer is
// stuck.
func (n *Node) passingFor() time.Duration { return 10 * n.cfg.Heartbeat }

// closeIdle closes the connections to id that carry no stream, every one
// when force is set, and reports whether none is left.
func (n *Node) closeIdle(id peer.ID, force bool) bool {
	left := false
	for _, c := range n.h.Network().ConnsToPeer(id) {
		if !force && len(c.GetStreams()) > 0 {
			left = true
			continue
		}
		c.Close()
	}
	return !left
}

// wideLocked returns the wide sample for this round: the peers kept from
// earlier rounds (so that each is dialled once and its later round trips
// are samples), topped up to sampleWide from the neighbours' lists with
// peers that are neither neighbours nor known gone. n.mu must be held.
func (n *Node) wideLocked() []peer.ID {
	for id := range n.wide {
		_, nb := n.nbrs[id]
		_, gone := n.gone[id]
		if nb || gone {
			delete(n.wide, id)
		}
	}
	if len(n.wide) < sampleWide {
		more := map[peer.ID][]ma.Multiaddr{} // a peer two neighbours list is one candidate
		for _, nb := range n.nbrs {
			for _, p := range nb.nbrs {
				id, addrs := peerAddrs(p)
				_, known := n.nbrs[id]
				_, gone := n.gone[id]
				_, taken := n.wide[id]
				if id != "" && id != n.h.ID() && !known && !gone && !taken {
					more[id] = addrs
				}
			}
		}
		ids := slices.Collect(maps.Keys(more))
		rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		for _, id := range ids[:min(len(ids), sampleWide-len(n.wide))] {
			if addrs := more[id]; len(addrs) > 0 {
				n.h.Peerstore().AddAddrs(id, addrs, peerstore.RecentlyConnectedAddrTTL)
			}
			n.wide[id] = struct{}{}
		}
	}
	return slices.Collect(maps.Keys(n.wide))
}

// exchange exchanges heartbeats with id and returns its reply; with
// sample set, the round trip feeds the coordinate, unless it went through
// a relay, whose detour says nothing of the distance between us.
func (n *Node) exchange(ctx context.Context, id peer.ID, hb *wire.Heartbeat, sample bool) (*wire.Heartbeat, error) {
	start := time.Now()
	resp, relayed, err := n.sendHeartbeat(ctx, id, hb)
	if err != nil {
		return nil, err
	}
	if sample && !relayed {
		n.observe(id, resp.Self.Coord, time.Since(start))
	}
	return resp, nil
}

// sendHeartbeat exchanges heartbeats with id, and says whether the
// exchange went through a relay.
func (n *Node) sendHeartbeat(ctx context.Context, id peer.ID, hb *wire.Heartbeat) (*wire.Heartbeat, bool, error) {
	// Two intervals: a busy peer is slow, not dead; rounds never overlap.
	ctx, cancel := context.WithTimeout(ctx, 2*n.cfg.Heartbeat)
	defer cancel()
	s, err := n.h.NewStream(wire.AllowRelayed(ctx), id, wire.HeartbeatProtocol)
	if err != nil {
		return nil, false, err
	}
	defer s.Close()
	var resp wire.Heartbeat
	if err := wire.NewConn(s, wire.MaxHeartbeatSize).Exchange(ctx, hb, wire.MaxHeartbeatSize, &resp); err != nil {
		s.Reset()
		return nil, false, err
	}
	return &resp, wire.Relayed(s.Conn()), nil
}

func (n *Node) handleHeartbeat(s network.Stream) {
	var hb wire.Heartbeat
	n.serve(s, "Heartbeat", &hb, wire.MaxHeartbeatSize, wire.MaxHeartbeatSize, func(_ context.Context, from peer.ID) wire.Message {
		n.onHeartbeat(&hb, from)
		n.mu.Lock()
		defer n.mu.Unlock()
		if nb, ok := n.nbrs[from]; ok && len(hb.Self.GetZones()) > 0 {
			nb.asked = time.Now()
		}
		return n.heartbeatLocked()
	})
}

// onHeartbeat applies a heartbeat heard from peer from.
func (n *Node) onHeartbeat(hb *wire.Heartbeat, from peer.ID) {
	id, addrs := peerAddrs(hb.Self)
	if id != from {
		return // a peer speaks only for itself
	}
	zones, ok := fromWireZones(hb.Self.Zones, n.cfg.Dim)
	if !ok {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if nb, ok := n.nbrs[from]; ok && hb.Seq < nb.seq {
		// Built before one already applied (its round's heartbeat and its
		// reply to ours cross): proof of life, but its zones are stale.
		if len(zones) > 0 {
			nb.misses = 0
		}
		return
	}
	if len(zones) == 0 {
		n.farewellLocked(from, hb)
		return
	}
	if h, ok := n.handers[from]; ok && time.Since(h.at) < n.goneFor() && overlapsAny(zones, h.zones) && overlapsAny(zones, n.zones) {
		// It handed us these zones as it left, or split them for our
		// join; a heartbeat that still claims what we hold of them was
		// built before that and crossed the handover. Settling it as an
		// overlap would give them back to a peer that no longer holds
		// them, and nobody would. (Rejoined through us, it holds a part
		// we gave away.)
		n.log.Debug("Ignored a heartbeat built before its sender handed us its zones", "peer", from.String())
		return
	}
	// What we knew it by and it no longer holds, nor passed to a peer its
	// own list names (a joiner, an overlap's winner): it restarted and
	// rejoined elsewhere, and that area waits for an heir.
	var before []can.Zone
	if nb, ok := n.nbrs[from]; ok && nb.direct {
		before = nb.zones
	}
	if d, ok := n.dead[from]; ok && !d.dropped {
		before = append(before, d.zones...)
		delete(n.dead, from)
	}
	if rest := n.orphanedLocked(before, zones, hb.Neighbours); len(rest) > 0 {
		if d, ok := n.dead[from]; ok {
			rest = merge(append(rest, d.zones...)) // merge drops a zone listed twice
		}
		n.dead[from] = &deadPeer{zones: rest, nbrs: hb.Neighbours, since: time.Now(), dropped: true}
		n.log.Debug("A peer no longer holds an area it held", "peer", from.String(), "zones", len(rest))
	}
	delete(n.gone, from)
	delete(n.probes, from)
	n.heard[from] = time.Now()
	// Two peers claiming the same area (a takeover of a peer that was only
	// slow, or two heirs at once): the smaller peer ID keeps it.
	yielded := false
	if from < n.h.ID() && overlapsAny(n.zones, zones) {
		kept := subtract(n.zones, zones)
		n.log.Info("Gave up an area also claimed by a smaller peer ID", "peer", from.String(), "zones_before", len(n.zones), "zones_after", len(kept),
			"claimed", fmt.Sprint(zones), "kept", fmt.Sprint(kept))
		n.zones, yielded = kept, true
		if len(kept) == 0 && !n.leaving {
			n.lost = time.Now()
			n.poke()
		}
	}
	if related(n.zones, zones) || yielded {
		var l can.Load
		if hb.Self.Load != nil {
			l = can.Load{RTL: hb.Self.Load.Rtl, RPL: hb.Self.Load.Rpl}
		}
		nb := n.upsertLocked(from, addrs, zones, l, true)
		nb.nbrs, nb.seq = hb.Neighbours, hb.Seq
		nb.idle = int(hb.Self.GetLoad().GetIdle())
		if yielded {
			nb.yielded = time.Now()
		}
	} else {
		n.removeLocked(from)
	}
	// Learn from the list even when the sender stopped being a neighbour:
	// after a split, its list names the joiner that now abuts us, and there
	// may be no other peer to tell us.
	for _, p := range hb.Neighbours {
		n.learnLocked(p, false)
	}
	n.pruneLocked()
}

// orphanedLocked returns the parts of before (the zones a peer held) that
// neither its current zones, nor the peers its own list names, nor this
// node hold.
func (n *Node) orphanedLocked(before, now []can.Zone, list []*wire.Peer) []can.Zone {
	if len(before) == 0 {
		return nil
	}
	rest := subtract(subtract(before, now), n.zones)
	for _, p := range list {
		if len(rest) == 0 {
			break
		}
		if zones, ok := fromWireZones(p.Zones, n.cfg.Dim); ok {
			rest = subtract(rest, zones)
		}
	}
	return rest
}

// missed counts a missed heartbeat; at DeadAfter the neighbour is dead and
// its zones await an heir.
func (n *Node) missed(id peer.ID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	nb, ok := n.nbrs[id]
	if !ok {
		return
	}
	nb.misses++
	if nb.misses < n.cfg.DeadAfter {
		return
	}
	n.removeLocked(id)
	n.gone[id] = time.Now()
	// Also a neighbour known only from another's list: when all its direct
	// neighbours died with it, we are the only ones left to notice.
	// checkDead takes nothing a live peer we know already holds.
	n.dead[id] = &deadPeer{zones: nb.zones, nbrs: nb.nbrs, since: time.Now()}
	n.log.Debug("Neighbour dead", "neighbour", id.String(), "zones", len(nb.zones), "direct", nb.direct)
}

// farewellLocked handles a heartbeat without zones. With a neighbour list
// it is the farewell of a peer that left: it is dropped, and its heir,
// named first in the list, is known to hold its zones now even before the
// heir says so itself. Without one, the peer holds no zone (it lost them
// to an overlap settlement, or never received the answer to its join) and
// is about to rejoin: it is dropped, and the zones we knew it by wait for
// an heir as a dead peer's do, minus what a live neighbour holds; unless
// it is a joiner that has not yet read the answer we sent it.
func (n *Node) farewellLocked(from peer.ID, hb *wire.Heartbeat) {
	var left []can.Zone
	if nb, ok := n.nbrs[from]; ok {
		if len(hb.Neighbours) == 0 && n.joiningLocked(nb) {
			// A joiner we have just handed a zone: our heartbeat crossed
			// the answer to its join. Taking the zone back now would give
			// the area two owners.
			return
		}
		left = nb.zones
	}
	n.removeLocked(from)
	delete(n.dead, from)
	delete(n.heard, from)
	if len(hb.Neighbours) == 0 {
		if len(left) > 0 {
			n.dead[from] = &deadPeer{zones: left, since: time.Now(), dropped: true}
		}
		return
	}
	n.gone[from] = time.Now()
	heir, _ := peerAddrs(hb.Neighbours[0])
	if nb, ok := n.nbrs[heir]; ok {
		if !overlapsAny(nb.zones, left) {
			nb.zones = merge(append(append([]can.Zone(nil), nb.zones...), left...))
		}
		return
	}
	n.learnLocked(hb.Neighbours[0], false)
}

// observe feeds one heartbeat round trip to Vivaldi. The round trip
// includes opening the stream, which on an open connection costs one more
// network round trip at most; Vivaldi's latency filter and error weighting
// absorb it.
func (n *Node) observe(id peer.ID, c *wire.Coordinate, rtt time.Duration) {
	if c == nil || len(c.Vec) != n.cfg.Dim {
		return
	}
	if n.cfg.PeerExtra != nil {
		rtt += n.cfg.PeerExtra(id)
	}
	other := coord.Coord{Vec: c.Vec, Height: c.Height, Adjustment: c.Adjustment, Error: c.Error}
	if _, err := n.viv.Observe(id.String(), other, rtt); err != nil {
		n.log.Debug("Coordinate update refused", "neighbour", id.String(), "err", err)
	}
}
