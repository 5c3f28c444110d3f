package node

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	ma "github.com/multiformats/go-multiaddr"
)

// heartbeatLocked builds this node's heartbeat: itself, its neighbours'
// addresses, and the certificates of its zones and theirs. n.mu must be
// held.
func (n *Node) heartbeatLocked() *wire.Heartbeat {
	n.seq++
	return &wire.Heartbeat{Self: n.selfLocked(), Neighbours: n.neighbourRecordsLocked(), Seq: n.seq, Certs: n.heldCertsLocked(time.Now())}
}

// probeEvery is DeadAfter heartbeat intervals: how long a grant's news
// travels in heartbeats.
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
// sample (sampleWide) while the coordinate is young, concurrently. One exchange carries
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
	var wide []peer.ID
	if young {
		wide = n.wideLocked()
	} else {
		for id := range n.wide {
			n.h.Passing(id) // unless a neighbour: ClosePassing keeps those
		}
		clear(n.wide)
	}
	ids := make([]peer.ID, 0, len(n.nbrs))
	var notify []peer.ID
	for id := range n.notify {
		if _, nb := n.nbrs[id]; !nb {
			notify = append(notify, id)
		}
	}
	clear(n.notify)
	for id, nb := range n.nbrs {
		if !all && now.Sub(nb.asked) < n.cfg.Heartbeat*3/2 && now.Sub(nb.told) < sampleEvery*n.cfg.Heartbeat {
			continue
		}
		ids = append(ids, id)
	}
	n.mu.Unlock()
	n.gate.Forget(now)
	// Dialled only to sample or to tell: closed once idle, or after ten
	// intervals whatever they carry.
	n.h.ClosePassing(10*n.cfg.Heartbeat, func(id peer.ID) bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		_, nb := n.nbrs[id]
		_, sampled := n.wide[id]
		return nb || sampled
	})
	var wg sync.WaitGroup
	for _, id := range notify {
		wg.Go(func() {
			if err := n.exchange(ctx, id, hb, false); err != nil {
				n.log.Debug("A peer a grant named did not answer", "peer", id.String(), "err", err)
				return
			}
			n.h.Passing(id) // dialled only to tell it, unless a neighbour
		})
	}
	for _, id := range wide {
		wg.Go(func() {
			// The first exchange dials, and a dial's handshakes say
			// nothing of the distance: only later ones are samples.
			if n.exchange(ctx, id, hb, n.h.Network().Connectedness(id) == network.Connected) != nil {
				n.mu.Lock()
				delete(n.wide, id)
				n.mu.Unlock()
			}
		})
	}
	for _, id := range ids {
		wg.Go(func() {
			if err := n.exchange(ctx, id, hb, true); err != nil {
				n.log.Debug("Heartbeat missed", "neighbour", id.String(), "err", err)
				n.missed(id)
				return
			}
			n.mu.Lock()
			n.stats.Heartbeats++
			if nb, ok := n.nbrs[id]; ok {
				nb.told = time.Now()
			}
			n.mu.Unlock()
		})
	}
	wg.Wait()
}

// wideLocked returns the wide sample for this round: the peers kept from
// earlier rounds (so that each is dialled once and its later round trips
// are samples), topped up to sampleWide from the neighbours' lists with
// peers that are neither neighbours nor known gone. n.mu must be held.
func (n *Node) wideLocked() []peer.ID {
	for id := range n.wide {
		if _, nb := n.nbrs[id]; nb {
			delete(n.wide, id)
		}
	}
	if len(n.wide) < sampleWide {
		more := map[peer.ID][]ma.Multiaddr{} // a peer two neighbours list is one candidate
		for _, nb := range n.nbrs {
			for _, p := range nb.nbrs {
				id, addrs := p.Decode()
				_, known := n.nbrs[id]
				_, taken := n.wide[id]
				if id != "" && id != n.h.ID() && !known && !taken {
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

// exchange exchanges heartbeats with id and applies its reply
// (onHeartbeat); with sample set, the round trip feeds the coordinate,
// unless it went through a relay, whose detour says nothing of the
// distance between us.
func (n *Node) exchange(ctx context.Context, id peer.ID, hb *wire.Heartbeat, sample bool) error {
	// Two intervals: a busy peer is slow, not dead; rounds never overlap.
	ctx, cancel := context.WithTimeout(ctx, 2*n.cfg.Heartbeat)
	defer cancel()
	start := time.Now()
	var resp wire.Heartbeat
	relayed, err := wire.Call(ctx, n.h, id, wire.HeartbeatProtocol, hb, wire.MaxHeartbeatSize, &resp, wire.MaxHeartbeatSize)
	if err != nil {
		return err
	}
	if sample && !relayed {
		n.observe(id, resp.Self.Coord, time.Since(start))
	}
	n.onHeartbeat(&resp, id)
	return nil
}

func (n *Node) handleHeartbeat(s network.Stream) {
	var hb wire.Heartbeat
	n.answer(s, "Heartbeat", &hb, wire.MaxHeartbeatSize, wire.MaxHeartbeatSize, func(_ context.Context, from peer.ID) wire.Message {
		n.onHeartbeat(&hb, from)
		n.mu.Lock()
		defer n.mu.Unlock()
		if nb, ok := n.nbrs[from]; ok {
			nb.asked = time.Now()
		}
		return n.heartbeatLocked()
	})
}

// onHeartbeat applies a heartbeat heard from peer from: the certificates
// it carries go to the book, whoever holds them (the book believes a
// signature and an epoch, not the sender), and, from a neighbour, its
// load and neighbour list.
func (n *Node) onHeartbeat(hb *wire.Heartbeat, from peer.ID) {
	id, addrs := hb.Self.Decode()
	if id != from {
		return // a peer speaks only for itself
	}
	if len(addrs) > 0 {
		n.h.Peerstore().AddAddrs(id, addrs, peerstore.RecentlyConnectedAddrTTL)
	}
	// The addresses of the peers it lists: one whose certificate it
	// carries may be a neighbour of ours that we know no other way. A
	// wrong address only fails a dial: the handshake proves the peer ID.
	for _, p := range hb.Neighbours {
		if lid, laddrs := p.Decode(); lid != "" && lid != n.h.ID() && len(laddrs) > 0 {
			n.h.Peerstore().AddAddrs(lid, laddrs, peerstore.RecentlyConnectedAddrTTL)
		}
	}
	certs := zonecert.DecodeEach(hb.Certs)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.adoptLocked(certs, time.Now())
	nb, ok := n.nbrs[from]
	if !ok {
		return
	}
	nb.direct, nb.misses = true, 0
	delete(n.suspects, from)
	if hb.Seq < nb.seq {
		// Built before one already applied (its round's heartbeat and its
		// reply to ours cross): its load is older than the one we hold.
		return
	}
	if l := hb.Self.Load; l != nil {
		nb.load = can.Load{RTL: l.Rtl, RPL: l.Rpl}
		nb.idle = int(l.Idle)
	}
	nb.nbrs, nb.seq = hb.Neighbours, hb.Seq
}

// missed counts a missed heartbeat; at DeadAfter in a row the neighbour is
// reported to the manager (manage), which decides whether it is gone.
func (n *Node) missed(id peer.ID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	nb, ok := n.nbrs[id]
	if !ok {
		return
	}
	nb.misses++
	if nb.misses >= n.cfg.DeadAfter {
		n.suspects[id] = true
	}
}

// observe feeds one heartbeat round trip to Vivaldi, and keeps the
// shortest to each neighbour. The round trip includes opening the stream,
// which on an open connection costs one more network round trip at most,
// and the time the other peer took to answer; Vivaldi's latency filter
// and error weighting absorb them, the shortest of several drops them.
func (n *Node) observe(id peer.ID, c *wire.Coordinate, rtt time.Duration) {
	if n.cfg.PeerExtra != nil {
		rtt += n.cfg.PeerExtra(id)
	}
	n.mu.Lock()
	if nb, ok := n.nbrs[id]; ok && (nb.rtt == 0 || rtt < nb.rtt) {
		nb.rtt = rtt
	}
	n.mu.Unlock()
	if c == nil || len(c.Vec) != n.cfg.Dim {
		return
	}
	if _, err := n.viv.Observe(id.String(), c.Coord(), rtt); err != nil {
		n.log.Debug("Coordinate update refused", "neighbour", id.String(), "err", err)
	}
}
