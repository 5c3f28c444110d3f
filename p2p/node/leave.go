package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// handoverBatchBytes bounds the task bytes of one handover batch, well
// under wire.MaxHandoverSize.
const handoverBatchBytes = 8 << 20

// heirsLocked orders the neighbours that could take this node's zones: one
// holding a sibling zone first (the zones merge), then by volume, then ID.
func (n *Node) heirsLocked() []peer.ID {
	type c struct {
		id      peer.ID
		sibling bool
		vol     float64
	}
	var cs []c
	for id, nb := range n.nbrs {
		if !nb.direct {
			continue
		}
		sib := false
		for _, z := range n.zones {
			if s, ok := z.Sibling(); ok {
				for _, o := range nb.zones {
					sib = sib || o.Equal(s)
				}
			}
		}
		cs = append(cs, c{id, sib, volume(nb.zones)})
	}
	slices.SortFunc(cs, func(a, b c) int {
		switch {
		case a.sibling != b.sibling:
			if a.sibling {
				return -1
			}
			return 1
		case a.vol != b.vol:
			if a.vol < b.vol {
				return -1
			}
			return 1
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	out := make([]peer.ID, len(cs))
	for i, x := range cs {
		out[i] = x.id
	}
	return out
}

// Leave hands this node's zones and tasks to a neighbour and says goodbye
// to the others. After Leave the node holds nothing; Serve may be stopped.
// A node without neighbours (the last peer) keeps its tasks in its queue.
func (n *Node) Leave(ctx context.Context) error { return n.leave(ctx, true) }

// leave hands the zones over, with the tasks when tasks is set. A node that
// leaves only to rejoin elsewhere (drift) keeps its tasks: its crawler may
// be running them, and handing a running task over would have two peers
// crawl one host at once. If no neighbour takes the zones, such a node
// stays where it was.
func (n *Node) leave(ctx context.Context, tasks bool) error {
	n.mu.Lock()
	if len(n.zones) == 0 {
		n.mu.Unlock()
		return ErrNotJoined
	}
	n.leaving = true
	heirs := n.heirsLocked()
	first := &wire.Handover{Zones: toWireZones(n.zones), Neighbours: n.handoverRecordsLocked()}
	others := make([]peer.ID, 0, len(n.nbrs))
	for id := range n.nbrs {
		others = append(others, id)
	}
	myZones := append([]can.Zone(nil), n.zones...)
	n.mu.Unlock()
	if len(heirs) == 0 {
		return nil
	}
	var queued, running [][]byte
	if tasks {
		var err error
		if queued, running, err = n.queue.Drain(ctx); err != nil {
			return fmt.Errorf("leave: drain queue: %w", err)
		}
	}
	if len(running) > 0 && n.cfg.HandoverPause > 0 {
		// One crawler at a time per host: the heir starts these tasks
		// at once, so let the hosts finish our last requests first.
		select {
		case <-ctx.Done(): // the handover below fails, and says why
		case <-time.After(n.cfg.HandoverPause):
		}
	}
	batches := batch(first, queued, running)
	all := append(append([][]byte(nil), queued...), running...) // in the order sent
	var errs []error
	var heir peer.ID
	var declined []uint32
	for _, h := range heirs {
		d, err := n.handOver(ctx, h, batches)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		heir, declined = h, d
		break
	}
	if heir == "" {
		if !tasks {
			n.mu.Lock()
			n.leaving = false
			n.mu.Unlock()
		}
		err := fmt.Errorf("leave: no neighbour took the zones: %w", errors.Join(errs...))
		return errors.Join(err, n.giveBack(ctx, all))
	}
	backErr := n.giveBack(ctx, declinedTasks(all, declined))
	// The farewell names the heir with the zones it now holds, so a
	// neighbour that loses the heir before hearing from it still knows
	// which zones to take over.
	n.mu.Lock()
	n.zones = nil
	clear(n.dead) // their heirs are the peers still in the overlay
	heirRec := &wire.Peer{Id: []byte(heir), Addrs: addrBytes(n.h.Peerstore().Addrs(heir)), Zones: toWireZones(myZones)}
	if nb, ok := n.nbrs[heir]; ok { // it may have been pruned meanwhile
		heirRec.Zones = toWireZones(merge(append(append([]can.Zone(nil), nb.zones...), myZones...)))
	}
	farewell := &wire.Heartbeat{Self: &wire.Peer{Id: []byte(n.h.ID()), Addrs: addrBytes(n.h.Addrs())}, Neighbours: []*wire.Peer{heirRec}}
	n.farewell = farewell
	n.mu.Unlock()
	// Goodbye to everyone else, so they do not wait for missed heartbeats.
	var wg sync.WaitGroup
	for _, id := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n.sendHeartbeat(ctx, id, farewell)
		}()
	}
	wg.Wait()
	if backErr != nil {
		return fmt.Errorf("leave: %w", backErr)
	}
	return nil
}

// declinedTasks returns the tasks of all (in the order sent) at the
// positions an heir declined, each once: an heir that names a position
// twice, or one it was never sent, gets nothing more given back for it.
func declinedTasks(all [][]byte, declined []uint32) [][]byte {
	seen := make(map[uint32]bool, len(declined))
	var out [][]byte
	for _, i := range declined {
		if int64(i) >= int64(len(all)) || seen[i] {
			continue
		}
		seen[i] = true
		out = append(out, all[i])
	}
	return out
}

// giveBack gives tasks no neighbour queued back to the manager, when the
// queue can (Returner); without it they wait for their deadline.
func (n *Node) giveBack(ctx context.Context, envelopes [][]byte) error {
	if len(envelopes) == 0 {
		return nil
	}
	r, ok := n.queue.(Returner)
	if !ok {
		return fmt.Errorf("%d tasks not handed over; the manager issues them again after their deadline", len(envelopes))
	}
	if err := r.Return(ctx, envelopes); err != nil {
		return fmt.Errorf("give %d tasks back to the manager: %w", len(envelopes), err)
	}
	n.mu.Lock()
	n.stats.GivenBack += int64(len(envelopes))
	n.mu.Unlock()
	n.log.Info("Tasks no neighbour could queue given back to the manager", "count", len(envelopes))
	return nil
}

// handoverRecordsLocked returns the neighbour records a leaving node hands
// its heir: first its dead neighbours whose zones await an heir, as they
// last announced them, then its live neighbours. The heir may never have
// heard of a dead one, and when this node was the only live peer that knew
// it died, nobody else would take its zones over: the heir learns of it as
// of any neighbour named second-hand, heartbeats it, finds it dead in its
// own rounds and takes its zones over at its rank. A live peer that
// dropped an area is left out: the heir would hear its new zones from it,
// not the area it left. n.mu must be held.
func (n *Node) handoverRecordsLocked() []*wire.Peer {
	var out []*wire.Peer
	for id, d := range n.dead {
		if !d.dropped {
			out = append(out, &wire.Peer{Id: []byte(id), Addrs: addrBytes(n.h.Peerstore().Addrs(id)), Zones: toWireZones(d.zones)})
		}
	}
	out = append(out, n.neighbourRecordsLocked(false)...)
	return out[:min(len(out), wire.MaxNeighbours)]
}

// batch splits the tasks into handover messages; the first carries the
// zones and neighbours, all but the last set More.
func batch(first *wire.Handover, queued, running [][]byte) []*wire.Handover {
	out := []*wire.Handover{first}
	cur, size := first, 0
	add := func(e []byte, run bool) {
		if len(cur.Queued)+len(cur.Running) == wire.MaxHandoverTasks || size+len(e) > handoverBatchBytes {
			cur = &wire.Handover{}
			out = append(out, cur)
			size = 0
		}
		if run {
			cur.Running = append(cur.Running, e)
		} else {
			cur.Queued = append(cur.Queued, e)
		}
		size += len(e)
	}
	for _, e := range queued {
		add(e, false)
	}
	for _, e := range running {
		add(e, true)
	}
	for _, b := range out[:len(out)-1] {
		b.More = true
	}
	return out
}

// handOver sends the batches to heir to and returns the positions of
// the tasks it took the zones but not the tasks of (its queue was full).
func (n *Node) handOver(ctx context.Context, to peer.ID, batches []*wire.Handover) ([]uint32, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*wire.DefaultTimeout)
	defer cancel()
	s, err := n.h.NewStream(wire.AllowRelayed(ctx), to, wire.HandoverProtocol)
	if err != nil {
		return nil, fmt.Errorf("hand over to %s: %w", to, err)
	}
	defer s.Close()
	c := wire.NewConn(s, wire.MaxHandoverResponseSize)
	for _, b := range batches[:len(batches)-1] {
		if err := c.Write(ctx, b, wire.MaxHandoverSize); err != nil {
			s.Reset()
			return nil, fmt.Errorf("hand over to %s: %w", to, err)
		}
	}
	var resp wire.HandoverResponse
	if err := c.Exchange(ctx, batches[len(batches)-1], wire.MaxHandoverSize, &resp); err != nil {
		s.Reset()
		return nil, fmt.Errorf("hand over to %s: %w", to, err)
	}
	if !resp.Accepted {
		return nil, fmt.Errorf("hand over to %s: refused: %s", to, resp.Error)
	}
	return resp.Declined, nil
}

func (n *Node) handleHandover(s network.Stream) {
	defer s.Close()
	from := s.Conn().RemotePeer()
	ctx, cancel := context.WithTimeout(context.Background(), 2*wire.DefaultTimeout)
	defer cancel()
	c := wire.NewConn(s, wire.MaxHandoverSize)
	tasks := uint32(0)
	var declined []uint32 // positions of the tasks not queued here
	pos := uint32(0)
	for first := true; ; first = false {
		var m wire.Handover
		if err := c.Read(ctx, &m); err != nil {
			n.log.Debug("Handover refused", "from", from, "err", err)
			s.Reset()
			return
		}
		if first {
			if err := n.takeHandedZones(from, &m); err != nil {
				n.mu.Lock()
				n.stats.HandoversRefused++
				n.mu.Unlock()
				n.log.Info("Refused a handover", "from", from, "err", err)
				c.Write(ctx, &wire.HandoverResponse{Error: err.Error()}, wire.MaxHandoverResponseSize)
				return
			}
		}
		for _, set := range [][][]byte{m.Queued, m.Running} {
			for _, e := range set {
				at := pos
				pos++
				t, err := envelope.Open(e, n.cfg.Manager)
				if err != nil {
					n.mu.Lock()
					n.stats.Refused++
					n.mu.Unlock()
					n.log.Info("Refused a handed-over task that failed verification", "from", from, "err", err)
					continue
				}
				if err := n.admitHandedOver(ctx, t, from); err != nil {
					continue // counted and logged
				}
				if err := n.queue.Enqueue(ctx, t, e); err != nil {
					// Given back, the leaving peer passes it on. Should
					// the manager send it again, it comes under the
					// host's next lease: not refused as seen.
					if len(declined) < wire.MaxDeclined {
						declined = append(declined, at)
					}
					n.log.Info("Handed-over task not queued; given back", "task", t.ID, "from", from, "err", err)
					continue
				}
				tasks++
			}
		}
		if !m.More {
			break
		}
	}
	n.mu.Lock()
	n.stats.HandedIn += int64(tasks)
	n.mu.Unlock()
	// Tasks is told up to what one batch may carry, all a response may
	// say: a larger count failed validation and the answer was never
	// sent, so the leaving peer took the handover for refused although
	// this peer held its zones and tasks.
	resp := &wire.HandoverResponse{Accepted: true, Tasks: min(tasks, wire.MaxHandoverTasks), Declined: declined}
	if err := c.Write(ctx, resp, wire.MaxHandoverResponseSize); err != nil {
		n.log.Warn("Handover answer not sent", "from", from, "err", err)
	}
}

// takeHandedZones adds a leaving neighbour's zones to ours. Only a
// neighbour handing over zones it holds may hand over tasks: the tasks of
// a handover that carries no zone are refused with it.
func (n *Node) takeHandedZones(from peer.ID, m *wire.Handover) error {
	zones, ok := fromWireZones(m.Zones, n.cfg.Dim)
	if !ok {
		return fmt.Errorf("malformed zone")
	}
	if len(zones) == 0 {
		return fmt.Errorf("handover carries no zone")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.leaving || len(n.zones) == 0 {
		return ErrLeaving
	}
	// Our view of the sender may lag a split, so each handed zone need only
	// overlap one it announced.
	nb, ok := n.nbrs[from]
	if !ok {
		return fmt.Errorf("handing peer is not a neighbour")
	}
	for _, z := range zones {
		if !overlapsAny([]can.Zone{z}, nb.zones) {
			return fmt.Errorf("handed zone %v is not the sender's", z)
		}
	}
	n.zones = merge(append(n.zones, zones...))
	n.log.Debug("Took the zones of a leaving neighbour", "from", from.String(), "zones", fmt.Sprint(zones))
	n.handers[from] = handed{zones: zones, at: time.Now()}
	n.removeLocked(from)
	n.gone[from] = time.Now()
	delete(n.dead, from)
	for _, p := range m.Neighbours {
		n.learnLocked(p, false)
	}
	n.pruneLocked()
	n.poke()
	return nil
}
