package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/share"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
)

// A node whose queue can give waiting tasks away (share.Queue) shares
// them with peers whose crawl threads are idle, with load balancing on
// (Config.MaxPieces): p2p/share decides what goes where, after every
// heartbeat round; the node is its overlay (sharing), naming the takers
// its heartbeats announce and carrying each offer as a load-balanced
// insert marked as a share.

// sharing is the node as the overlay of its share.Sharer.
type sharing struct{ n *Node }

// Takers names the direct neighbours that announced idle crawl threads
// (less the tasks shared with them since); with none, the peers two hops
// away their lists relay (farTakersLocked).
func (s sharing) Takers() ([]can.Zone, []share.Taker, bool) {
	n := s.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.leaving || len(n.zones) == 0 {
		return nil, nil, false
	}
	var takers []share.Taker
	for id, nb := range n.nbrs {
		if nb.direct && nb.idle > 0 {
			takers = append(takers, share.Taker{ID: id, Zones: nb.zones, RTT: nb.rtt})
		}
	}
	if len(takers) == 0 {
		takers = n.farTakersLocked(time.Now())
	}
	return slices.Clone(n.zones), takers, true
}

// farTakersLocked returns the peers two hops away as our direct
// neighbours last relayed them, each with the fewest idle crawl threads
// relayed for it, and adds their addresses to the peerstore to reach
// them. A peer that heartbeats us speaks for itself and is left out; so
// are peers whose certificates we do not hold. n.mu must be held.
func (n *Node) farTakersLocked(now time.Time) []share.Taker {
	far := map[peer.ID]*share.Taker{}
	for _, nb := range n.nbrs {
		if !nb.direct {
			continue
		}
		for _, p := range nb.nbrs {
			id, err := peer.IDFromBytes(p.Id)
			if err != nil || id == n.h.ID() {
				continue
			}
			if own, ok := n.nbrs[id]; ok && own.direct {
				continue
			}
			k := int(p.GetLoad().GetIdle())
			if t, ok := far[id]; ok {
				t.Relayed = min(t.Relayed, k)
				continue
			}
			zs := zonecert.Zones(n.book.HeldBy(id, now), n.cfg.Dim)
			if len(zs) == 0 {
				continue // no certificate of its: it holds nothing we know
			}
			far[id] = &share.Taker{ID: id, Zones: zs, Far: true, Relayed: k}
			_, addrs := p.Decode()
			n.h.Peerstore().AddAddrs(id, addrs, peerstore.RecentlyConnectedAddrTTL)
		}
	}
	out := make([]share.Taker, 0, len(far))
	for _, t := range far {
		out = append(out, *t)
	}
	return out
}

// Offer sends a waiting task to taker to as a load-balanced insert marked
// as a share, with this node's certificate of the zone holding target and
// its hand-off to to, and reports whether it took the task. Any refusal
// keeps the task here, a neighbour that has seen it (admission.ErrSeen)
// included, as with balancing. A neighbour that took it has one idle
// thread fewer until its next heartbeat tells; one that refused it for
// another reason than distance, none.
func (s sharing) Offer(ctx context.Context, to share.Taker, t *task.Task, env []byte, target can.Point) (bool, error) {
	n := s.n
	taken, err := n.offer(ctx, to.ID, t, env, target)
	n.mu.Lock()
	if nb, ok := n.nbrs[to.ID]; ok && !to.Far && !errors.Is(err, admission.ErrTooFar) {
		if taken {
			nb.idle--
		} else {
			nb.idle = 0 // not again before it says so
		}
	}
	if taken {
		n.stats.Shared++
	}
	n.mu.Unlock()
	if taken {
		n.gate.Passed(t)
	}
	return taken, err
}

func (n *Node) offer(ctx context.Context, to peer.ID, t *task.Task, env []byte, target can.Point) (bool, error) {
	n.mu.Lock()
	c, ok := n.ownCertLocked(target)
	n.mu.Unlock()
	if !ok {
		return false, fmt.Errorf("share: this peer no longer holds %v", target)
	}
	cert, err := c.MarshalBinary()
	if err != nil {
		return false, fmt.Errorf("share: %w", err)
	}
	proof, err := n.proof(nil, t, target, to)
	if err != nil {
		return false, fmt.Errorf("share: %w", err)
	}
	var rttUs uint32
	if d, ok := n.hostRTT(t); ok {
		rttUs = uint32(min(max(d.Microseconds(), 1), math.MaxUint32))
	}
	resp, err := n.forward(ctx, to, &wire.Insert{Envelope: env, Target: target, Hops: 1, Lbi: true, Share: true, Path: [][]byte{cert}, Proof: proof, HostRttUs: rttUs})
	switch {
	case err != nil:
		return false, err
	case !resp.Accepted:
		return false, refusal(resp.Error)
	}
	return true, nil
}

// hostRTT returns this peer's own last measured round trip to the host of
// task t (Config.HostRTT), false when it has none.
func (n *Node) hostRTT(t *task.Task) (time.Duration, bool) {
	if n.cfg.HostRTT == nil {
		return 0, false
	}
	return n.cfg.HostRTT(t.Lease.Host)
}

// freeThreadLocked reports whether a crawl thread here is free for one
// more task: more idle threads than tasks waiting for one. A peer is the
// one authority on its own threads; what a sharer knows of them is a
// heartbeat old, or two hops away older still, so a taker checks it
// before taking a shared task (Insert.Share). n.mu must be held.
func (n *Node) freeThreadLocked() bool {
	sh, ok := n.queue.(share.Queue)
	if !ok {
		return false
	}
	waiting, idle := sh.Spare()
	return waiting < idle
}
