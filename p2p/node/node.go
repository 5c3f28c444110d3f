package node

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	ma "github.com/multiformats/go-multiaddr"
)

// Queue is where accepted tasks go: the client's bbolt task queue
// implements it. A Queue that also implements SeenSet keeps the node's
// record of tasks seen, across restarts.
type Queue interface {
	// Enqueue stores a verified task with the envelope it came in, so the
	// task can be handed over again with its signature. When the queue
	// holds as many tasks as it may, its error wraps ErrQueueFull.
	Enqueue(ctx context.Context, t *task.Task, envelope []byte) error
	// Load returns the pieces (tasks queued and running) and the sum of
	// their expected pages, for RTL and RPL. It is called with the node's
	// lock held and must not call back into the node.
	Load() (pieces int, pages int64)
	// Drain removes and returns every queued and running task's envelope,
	// for a graceful leave.
	Drain(ctx context.Context) (queued, running [][]byte, err error)
}

// Returner is a Queue that can give tasks back to the manager that issued
// them: those of a leave that no neighbour queued (the heir's queue was
// full, or no neighbour took the zones). The manager issues their hosts
// again at once instead of after their deadline.
type Returner interface {
	Return(ctx context.Context, envelopes [][]byte) error
}

// Fuller is a Queue that can tell it holds as many tasks as it may. The
// node then refuses or balances an insert before recording it as seen, so
// that the manager's next try of the task is not refused as a replay.
type Fuller interface {
	// Full reports whether Enqueue would turn a new task away. Like
	// Load, it is called with the node's lock held.
	Full() bool
}

// Stats are the node's counters. Refusals are counted by the peer that
// refuses, whether the task came in an insert or a handover.
type Stats struct {
	Accepted  int64 // tasks queued here
	Forwarded int64 // inserts routed or balanced onward
	Refused   int64 // tasks refused: forged, altered or invalid
	// Genuine tasks refused (admit.go), by reason.
	Expired     int64 // no lease on the host, or the lease ended (ErrNoLease)
	IssuedAhead int64 // issued more than MaxClockSkew after our clock (ErrIssuedAhead)
	Mistargeted int64 // signed target missing or not the insert's (ErrTargetMismatch)
	Misaimed    int64 // balanced here by a peer not holding the target (ErrMisaimed)
	Replayed    int64 // seen here before (ErrSeen)
	Takeovers   int64 // zones taken over from dead neighbours
	HandedIn    int64 // tasks received in handovers
	GivenBack   int64 // tasks of a leave given back to the manager (Returner)
	// HandoversRefused counts handovers refused whole: the sender is not
	// a neighbour handing over zones it holds, or we are leaving.
	HandoversRefused int64
	// Heartbeats counts the heartbeat exchanges this node started and
	// completed with neighbours.
	Heartbeats int64
	// Moves counts the rejoins at the node's mapped coordinate
	// (drift.go): the first move, then one for each time its coordinate
	// or the bounds moved it out of its zones (Drifts).
	Moves int64
	// Shared counts the waiting tasks this node gave to peers with idle
	// crawl threads, neighbours or two hops away (share.go).
	Shared int64
	// Returned counts the tasks this node balanced or shared to a
	// neighbour that came back with the neighbour's zone when it left
	// (counted in HandedIn too).
	Returned int64
	// GapLookups counts the lookups of an owner across a part of this
	// node's boundary no known zone covered (gaps.go), GapsFound those
	// that found it, GapsUnheld those every peer asked answered without
	// holding the point.
	GapLookups, GapsFound, GapsUnheld int64
}

// neighbour is what the node knows of one neighbour.
type neighbour struct {
	id    peer.ID
	zones []can.Zone
	load  can.Load
	nbrs  []*wire.Peer // its last announced neighbour list, for takeover
	// idle is the crawl threads it last announced idle, less the tasks
	// shared with it since (share.go).
	idle   int
	misses int
	direct bool   // heard from directly, not only through another's list
	seq    uint64 // the newest heartbeat's sequence number applied
	// handed is when this node handed the neighbour a zone as it joined:
	// until the joiner has read the answer, its heartbeats carry no zone.
	handed time.Time
	// yielded is when this node gave up an area the neighbour also
	// claimed (an overlap settlement).
	yielded time.Time
	// asked is when the neighbour last sent us a heartbeat of its own
	// round, told when we last exchanged one of ours with it (see
	// heartbeatRound).
	asked, told time.Time
}

// handed is what a leaving neighbour handed this node, and when.
type handed struct {
	zones []can.Zone
	at    time.Time
}

// deadPeer is a neighbour found dead whose zones wait for an heir, or
// (dropped) a live one that announced it holds none of the zones we knew it
// by.
type deadPeer struct {
	zones   []can.Zone
	nbrs    []*wire.Peer
	since   time.Time
	dropped bool
}

// Node is one live overlay peer. Create it with New, then Start (first peer)
// or Join, run Serve, and end with Leave or Close.
type Node struct {
	h     *host.Host
	cfg   Config
	queue Queue
	seen  SeenSet // the queue, or a set in memory
	log   *slog.Logger

	// joinMu lets one join run at a time: the client's entry loop and
	// the node's own rejoin (checkLost) may both try.
	joinMu sync.Mutex
	// sharing is set while share runs (one at a time), gapping while
	// checkGaps does, seeking while the lookup for a move's point does
	// (drift.go).
	sharing, gapping, seeking atomic.Bool

	mu     sync.Mutex // guards the fields below
	zones  []can.Zone
	nbrs   map[peer.ID]*neighbour
	dead   map[peer.ID]*deadPeer
	gone   map[peer.ID]time.Time // left or dead: not re-learned from lists
	probes map[peer.ID]time.Time // heard of second-hand, to hear from first-hand; value: when last probed
	heard  map[peer.ID]time.Time // peers holding zones heard from first-hand, when; rejoin entries
	// handers are the neighbours that handed us zones, as they left
	// (leave.go) or when we joined through them (join.go), with what they
	// handed and when: a heartbeat of theirs that still claims those
	// zones was built before they handed them.
	handers map[peer.ID]handed
	wide    map[peer.ID]struct{} // peers beyond the neighbours sampled while the coordinate is young (heartbeat.go)
	// passing holds the peers dialled only to sample or probe, to close
	// once no stream runs on their connections (heartbeat.go); value:
	// since when.
	passing map[peer.ID]time.Time
	leaving bool
	// farewell is the goodbye sent after a graceful leave, repeated to
	// anyone still heartbeating this node.
	farewell *wire.Heartbeat
	// lost is when the node lost its last zone to an overlap settlement;
	// zero when it holds zones or never joined. Serve rejoins it.
	lost time.Time
	// left holds the deliveries (seenKey) this node balanced or shared to
	// a neighbour, until their lease ends: one handed back by that
	// neighbour's leave is this node's again, not a replay (admit.go).
	left map[string]time.Time
	// farGiven counts the tasks this node shared with each peer two hops
	// away since it last did so (share.go), against the idle threads a
	// neighbour relayed for it.
	farGiven map[peer.ID]farGift
	// placed is set once the node has rejoined at its mapped coordinate
	// (drift.go); until then it moves as soon as that point lies outside
	// its zones.
	placed bool
	// bounds map the coordinate into the CAN space (Config.Bounds at
	// first, then the manager's trained ones, boundsEpoch their number).
	bounds      *coord.Bounds
	boundsEpoch uint64
	// first is the point the node first joined at; it sets its turn to
	// move (drift.go).
	first can.Point
	// seq numbers this node's heartbeats. It starts at the clock, so a
	// restarted peer's numbers exceed its previous run's, and a heartbeat
	// built before one already applied is known by its smaller number.
	seq   uint64
	stats Stats
	// gapChecked is when the boundary was last checked for gaps, gapSeen
	// whether that check found one (gaps.go).
	gapChecked time.Time
	gapSeen    bool
	// found is the answer to the lookup for a move's point, which Serve's
	// next round moves on (drift.go); nil while none waits.
	found *moveLookup

	kick chan struct{} // asks Serve for a heartbeat round now
	viv  *coord.Client // safe for concurrent use
}

// New returns a node on h that queues accepted tasks in q. It registers the
// overlay's stream handlers on h.
func New(h *host.Host, q Queue, cfg Config) (*Node, error) {
	cfg.fill()
	if cfg.Manager == nil {
		return nil, fmt.Errorf("new node: no manager key to verify tasks with")
	}
	if len(cfg.Point) != cfg.Dim {
		return nil, fmt.Errorf("new node: point %v has %d dimensions, want %d", cfg.Point, len(cfg.Point), cfg.Dim)
	}
	viv, err := coord.NewClient(cfg.Dim, rand.New(rand.NewPCG(seed(h.ID()), 0)))
	if err != nil {
		return nil, fmt.Errorf("new node: %w", err)
	}
	n := &Node{
		viv:      viv,
		h:        h,
		cfg:      cfg,
		bounds:   cfg.Bounds,
		first:    slices.Clone(cfg.Point),
		queue:    q,
		log:      cfg.Logger.With("peer", h.ID().String()),
		nbrs:     map[peer.ID]*neighbour{},
		dead:     map[peer.ID]*deadPeer{},
		gone:     map[peer.ID]time.Time{},
		left:     map[string]time.Time{},
		farGiven: map[peer.ID]farGift{},
		probes:   map[peer.ID]time.Time{},
		heard:    map[peer.ID]time.Time{},
		handers:  map[peer.ID]handed{},
		wide:     map[peer.ID]struct{}{},
		passing:  map[peer.ID]time.Time{},
		kick:     make(chan struct{}, 1),
		seq:      uint64(time.Now().UnixNano()),
	}
	if s, ok := q.(SeenSet); ok {
		n.seen = s
	} else {
		n.seen = newMemSeen()
		n.log.Warn("Task queue keeps no record of tasks seen; replayed tasks are refused only until this peer restarts")
	}
	h.SetStreamHandler(wire.JoinProtocol, n.handleJoin)
	h.SetStreamHandler(wire.HeartbeatProtocol, n.handleHeartbeat)
	h.SetStreamHandler(wire.InsertProtocol, n.handleInsert)
	h.SetStreamHandler(wire.HandoverProtocol, n.handleHandover)
	h.SetStreamHandler(wire.LookupProtocol, n.handleLookup)
	return n, nil
}

// ID returns the node's peer ID.
func (n *Node) ID() peer.ID { return n.h.ID() }

// Start makes this node the first peer, owning the whole space.
func (n *Node) Start() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.zones = []can.Zone{can.Unit(n.cfg.Dim)}
}

// Zones returns a copy of the zones the node holds.
func (n *Node) Zones() []can.Zone {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]can.Zone(nil), n.zones...)
}

// Neighbours returns the IDs of the current neighbours.
func (n *Node) Neighbours() []peer.ID {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]peer.ID, 0, len(n.nbrs))
	for id := range n.nbrs {
		out = append(out, id)
	}
	return out
}

// Drifts counts the moves after the first: the drift rejoins of a node
// already placed by its coordinate.
func (s Stats) Drifts() int64 { return max(s.Moves-1, 0) }

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stats
}

// Serve runs the heartbeat loop until ctx ends.
func (n *Node) Serve(ctx context.Context) error {
	t := time.NewTicker(n.cfg.Heartbeat)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		all := false
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-n.kick:
			all = true // news to spread: to every neighbour
		}
		n.heartbeatRound(ctx, all)
		wg.Go(func() { n.share(ctx) }) // offers wait on neighbours; heartbeats must not
		if n.gapping.CompareAndSwap(false, true) {
			wg.Go(func() { defer n.gapping.Store(false); n.checkGaps(ctx, time.Now()) })
		}
		n.checkDead(time.Now())
		if err := n.checkLost(ctx); err != nil {
			n.log.Warn("Rejoin after losing every zone failed; retrying next round", "err", err)
		}
		if err := n.checkDrift(ctx, &wg); err != nil {
			n.log.Warn("Rejoin after coordinate drift failed", "err", err)
		}
	}
}

// poke asks Serve for a heartbeat round soon.
func (n *Node) poke() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// serve answers one request on stream s, as the join, heartbeat, insert
// and lookup protocols do: it reads a request of at most maxReq bytes into
// req, then writes what answer returns for it (at most maxResp bytes),
// within wire.DefaultTimeout. A request that does not read resets the
// stream; either failure is logged at Debug under kind.
func (n *Node) serve(s network.Stream, kind string, req wire.Message, maxReq, maxResp int, answer func(ctx context.Context, from peer.ID) wire.Message) {
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wire.DefaultTimeout)
	defer cancel()
	from := s.Conn().RemotePeer()
	c := wire.NewConn(s, maxReq)
	if err := c.Read(ctx, req); err != nil {
		n.log.Debug(kind+" refused", "from", from, "err", err)
		s.Reset()
		return
	}
	if err := c.Write(ctx, answer(ctx, from), maxResp); err != nil {
		n.log.Debug(kind+" answer not sent", "to", from, "err", err)
	}
}

// Close unregisters the handlers. The host is the caller's to close.
func (n *Node) Close() error {
	for _, p := range []string{wire.JoinProtocol, wire.HeartbeatProtocol, wire.InsertProtocol, wire.HandoverProtocol, wire.LookupProtocol} {
		n.h.RemoveStreamHandler(protocolID(p))
	}
	return nil
}

// self returns this peer's wire record; n.mu must be held.
func (n *Node) selfLocked() *wire.Peer {
	return &wire.Peer{
		Id:    []byte(n.h.ID()),
		Addrs: addrBytes(n.h.Addrs()),
		Zones: toWireZones(n.zones),
		Load:  n.loadWire(),
		Coord: WireCoordinate(n.viv.Coord()),
	}
}

// Coordinate returns the node's current Vivaldi coordinate.
func (n *Node) Coordinate() coord.Coord { return n.viv.Coord() }

// seed derives a random seed from a peer ID, so each node's Vivaldi start
// differs but stays reproducible.
func seed(id peer.ID) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

func (n *Node) load() can.Load {
	if n.queue == nil {
		return can.Load{}
	}
	pieces, pages := n.queue.Load()
	return can.NewLoad(pieces, pages, n.cfg.Capacity)
}

// loadWire is the node's load as its heartbeats announce it; n.mu must be
// held.
func (n *Node) loadWire() *wire.Load {
	l := n.load()
	w := &wire.Load{Rtl: l.RTL, Rpl: l.RPL}
	if sh, ok := n.queue.(Sharer); ok {
		waiting, idle := sh.Spare()
		w.Waiting, w.Idle = slots(waiting), slots(idle)
	}
	return w
}

// slots clamps a count into what a wire.Load may announce.
func slots(k int) uint32 { return uint32(min(max(k, 0), wire.MaxSlots)) }

// neighbourRecordsLocked returns the neighbour list as wire records; with
// direct set, only neighbours heard from first-hand, so that stale hearsay
// never spreads from peer to peer.
func (n *Node) neighbourRecordsLocked(direct bool) []*wire.Peer {
	out := make([]*wire.Peer, 0, len(n.nbrs))
	for _, nb := range n.nbrs {
		if len(out) == wire.MaxNeighbours {
			break
		}
		if direct && !nb.direct {
			continue
		}
		out = append(out, n.recordLocked(nb))
	}
	return out
}

// recordLocked is what the node tells others of neighbour nb, its idle
// crawl threads included, so that a peer two hops from it can share a
// waiting task with it (share.go).
func (n *Node) recordLocked(nb *neighbour) *wire.Peer {
	return &wire.Peer{
		Id:    []byte(nb.id),
		Addrs: addrBytes(n.h.Peerstore().Addrs(nb.id)),
		Zones: toWireZones(nb.zones),
		Load:  &wire.Load{Rtl: nb.load.RTL, Rpl: nb.load.RPL, Idle: slots(nb.idle)},
	}
}

// upsertLocked records or refreshes neighbour id; n.mu must be held.
func (n *Node) upsertLocked(id peer.ID, addrs []ma.Multiaddr, zones []can.Zone, load can.Load, direct bool) *neighbour {
	if len(addrs) > 0 {
		n.h.Peerstore().AddAddrs(id, addrs, peerstore.RecentlyConnectedAddrTTL)
	}
	nb, ok := n.nbrs[id]
	if !ok {
		nb = &neighbour{id: id}
		n.nbrs[id] = nb
		n.h.ProtectNeighbour(id)
	}
	nb.zones = zones
	nb.load = load
	if direct {
		nb.direct = true
		nb.misses = 0
	}
	return nb
}

func (n *Node) removeLocked(id peer.ID) {
	if _, ok := n.nbrs[id]; ok {
		delete(n.nbrs, id)
		n.h.UnprotectNeighbour(id)
	}
}

// joiningLocked reports whether nb is a joiner this node handed a zone
// less than DeadAfter intervals ago: it may not have read the answer yet,
// and our neighbours may not know it yet.
func (n *Node) joiningLocked(nb *neighbour) bool {
	return time.Since(nb.handed) < n.probeEvery()
}

// pruneLocked drops neighbours that no longer abut (or overlap) this node's
// zones. A joiner handed a zone a moment ago, and the winner of an area we
// just gave up, stay for DeadAfter intervals even when their zones do not
// abut ours: our heartbeats list them meanwhile, telling our neighbours who
// holds the area now (else they would take it for orphaned).
func (n *Node) pruneLocked() {
	for id, nb := range n.nbrs {
		if n.joiningLocked(nb) || time.Since(nb.yielded) < n.probeEvery() {
			continue
		}
		if !abutsAny(n.zones, nb.zones) && !(nb.direct && overlapsAny(n.zones, nb.zones)) {
			n.removeLocked(id)
		}
	}
}

// infosLocked returns the neighbour table in can's form.
func (n *Node) infosLocked() []can.NeighbourInfo {
	out := make([]can.NeighbourInfo, 0, len(n.nbrs))
	for _, nb := range n.nbrs {
		out = append(out, can.NeighbourInfo{ID: can.PeerID(nb.id), Zones: nb.zones, Load: nb.load})
	}
	return out
}

// deadCount returns how many dead neighbours await an heir (for tests).
func (n *Node) deadCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.dead)
}
