package node

import (
	"context"
	"errors"
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
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// Queue is where accepted tasks go: the client's bbolt task queue
// implements it. A Queue that also implements SeenSet keeps the node's
// record of tasks seen, across restarts.
type Queue interface {
	// Enqueue stores a verified task with the envelope it came in, so the
	// task can be handed over again with its signature, and the proof
	// (zonecert.Proof, encoded) that its host's lease may be claimed
	// here. When the queue holds as many tasks as it may, its error wraps
	// ErrQueueFull.
	Enqueue(ctx context.Context, t *task.Task, envelope, proof []byte) error
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
	HandedIn    int64 // tasks received in handovers
	GivenBack   int64 // tasks of a leave given back to the manager (Returner)
	// HandoversRefused counts handovers refused whole: the sender shows
	// no zone the manager has since certified to this peer, or we are
	// leaving.
	HandoversRefused int64
	// Heartbeats counts the heartbeat exchanges this node started and
	// completed with neighbours.
	Heartbeats int64
	// Moves counts the moves to the node's mapped coordinate (drift.go):
	// the first, then one for each time its coordinate or the bounds
	// moved it out of its zones (Drifts).
	Moves int64
	// Shared counts the waiting tasks this node gave to peers with idle
	// crawl threads, neighbours or two hops away (share.go).
	Shared int64
	// Returned counts the tasks this node balanced or shared to a
	// neighbour that came back with the neighbour's zone when it left
	// (counted in HandedIn too).
	Returned int64
	// Reports counts the neighbours this node reported to the manager as
	// silent, Renewals the renewals of its certificates, and Rejoins the
	// joins after it found itself without a zone.
	Reports, Renewals, Rejoins int64
	// CertsRefused counts zone certificates refused: forged, expired, or
	// older than one already seen for the zone.
	CertsRefused int64
}

// neighbour is what the node knows of one neighbour: a peer whose
// certified zones abut ours.
type neighbour struct {
	id    peer.ID
	zones []can.Zone // by its certificates
	load  can.Load
	nbrs  []*wire.Peer // its last announced neighbour list (share.go, wide samples)
	// idle is the crawl threads it last announced idle, less the tasks
	// shared with it since (share.go).
	idle   int
	misses int
	direct bool   // heard from itself
	seq    uint64 // the newest heartbeat's sequence number applied
	// asked is when the neighbour last sent us a heartbeat of its own
	// round, told when we last exchanged one of ours with it (see
	// heartbeatRound).
	asked, told time.Time
}

// Node is one live overlay peer. Create it with New, then Join, run Serve,
// and end with Leave or Close.
type Node struct {
	h     *host.Host
	cfg   Config
	queue Queue
	seen  SeenSet // the queue, or a set in memory
	log   *slog.Logger

	// sharing is set while share runs (one at a time).
	sharing atomic.Bool

	mu sync.Mutex // guards the fields below
	// book holds every zone certificate this node accepted; own and
	// zones are its own certificates and their zones, nbrs the holders
	// of certificates abutting them (refreshLocked).
	book  *zonecert.Book
	own   []zonecert.Cert
	zones []can.Zone
	nbrs  map[peer.ID]*neighbour
	// news are the certificates of the last grant, carried in heartbeats
	// until newsUntil.
	news      []zonecert.Cert
	newsUntil time.Time
	// notify are the peers the next round heartbeats once besides the
	// neighbours: the holders a grant names and the neighbours before
	// it, who learn what changed from the grant's certificates.
	notify map[peer.ID]bool
	// member is set by Join and cleared by Leave: a member without a zone
	// joins again.
	member  bool
	leaving bool
	// renewed is when the certificates were last renewed or granted;
	// nothing is asked of the manager before quietUntil, set after a
	// request failed.
	renewed, quietUntil time.Time
	// suspects are neighbours that missed DeadAfter heartbeats, to report
	// to the manager; reported is when each was last reported.
	suspects map[peer.ID]bool
	reported map[peer.ID]time.Time
	wide     map[peer.ID]struct{} // peers beyond the neighbours sampled while the coordinate is young (heartbeat.go)
	// passing holds the peers dialled only to sample, to close once no
	// stream runs on their connections (heartbeat.go); value: since when.
	passing map[peer.ID]time.Time
	// left holds the deliveries (seenKey) this node balanced or shared to
	// a neighbour, until their lease ends: one handed back by that
	// neighbour's leave is this node's again, not a replay (admit.go).
	left map[string]time.Time
	// farGiven counts the tasks this node shared with each peer two hops
	// away since it last did so (share.go), against the idle threads a
	// neighbour relayed for it.
	farGiven map[peer.ID]farGift
	// placed is set once the node has moved to its mapped coordinate
	// (drift.go); until then it moves as soon as that point lies outside
	// its zones.
	placed bool
	// bounds map the coordinate into the CAN space (Config.Bounds at
	// first, then the manager's trained ones, boundsEpoch their number).
	bounds      *coord.Bounds
	boundsEpoch uint64
	// seq numbers this node's heartbeats. It starts at the clock, so a
	// restarted peer's numbers exceed its previous run's, and a heartbeat
	// built before one already applied is known by its smaller number.
	seq   uint64
	stats Stats

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
		queue:    q,
		log:      cfg.Logger.With("peer", h.ID().String()),
		book:     zonecert.NewBook(cfg.Manager),
		nbrs:     map[peer.ID]*neighbour{},
		suspects: map[peer.ID]bool{},
		reported: map[peer.ID]time.Time{},
		left:     map[string]time.Time{},
		farGiven: map[peer.ID]farGift{},
		wide:     map[peer.ID]struct{}{},
		passing:  map[peer.ID]time.Time{},
		notify:   map[peer.ID]bool{},
		kick:     make(chan struct{}, 1),
		seq:      uint64(time.Now().UnixNano()),
	}
	if s, ok := q.(SeenSet); ok {
		n.seen = s
	} else {
		n.seen = newMemSeen()
		n.log.Warn("Task queue keeps no record of tasks seen; replayed tasks are refused only until this peer restarts")
	}
	h.SetStreamHandler(wire.HeartbeatProtocol, n.handleHeartbeat)
	h.SetStreamHandler(wire.InsertProtocol, n.handleInsert)
	h.SetStreamHandler(wire.HandoverProtocol, n.handleHandover)
	return n, nil
}

// ID returns the node's peer ID.
func (n *Node) ID() peer.ID { return n.h.ID() }

// Join asks the manager for a zone at Config.Point and makes the node a
// member: from then on Serve renews its certificates and, should it hold
// no zone, asks again.
func (n *Node) Join(ctx context.Context) error {
	n.mu.Lock()
	n.member, n.leaving = true, false
	p := slices.Clone(n.cfg.Point)
	n.mu.Unlock()
	if err := n.ask(ctx, zonecert.Request{Op: zonecert.OpJoin, Point: p}); err != nil {
		return fmt.Errorf("join: %w", err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.renewed = time.Now()
	if len(n.zones) == 0 {
		return fmt.Errorf("join: %w: the manager's answer certifies no zone to this peer", ErrJoinFailed)
	}
	n.poke()
	return nil
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

// Serve runs the heartbeat loop, and beside it the requests to the
// manager (manage), until ctx ends.
func (n *Node) Serve(ctx context.Context) error {
	t := time.NewTicker(n.cfg.Heartbeat)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { n.manage(ctx) })
	for {
		all := false
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-n.kick:
			all = true // news to spread: to every neighbour
		}
		n.mu.Lock()
		n.refreshLocked(time.Now()) // certificates expire
		n.mu.Unlock()
		n.heartbeatRound(ctx, all)
		wg.Go(func() { n.share(ctx) }) // offers wait on neighbours; heartbeats must not
	}
}

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
	for _, p := range []string{wire.HeartbeatProtocol, wire.InsertProtocol, wire.HandoverProtocol} {
		n.h.RemoveStreamHandler(protocol.ID(p))
	}
	return nil
}

// self returns this peer's wire record; n.mu must be held.
func (n *Node) selfLocked() *wire.Peer {
	return &wire.Peer{
		Id:    []byte(n.h.ID()),
		Addrs: addrBytes(n.h.Addrs()),
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

// neighbourRecordsLocked returns the neighbour list as wire records: each
// neighbour whose addresses this node knows, heard from or not yet. A
// peer learns a new neighbour's certificate from others before it hears
// from it, and its addresses from these lists: without them it could not
// heartbeat the neighbour, nor route through it.
func (n *Node) neighbourRecordsLocked() []*wire.Peer {
	out := make([]*wire.Peer, 0, len(n.nbrs))
	for _, nb := range n.nbrs {
		if len(out) == wire.MaxNeighbours {
			break
		}
		if r := n.recordLocked(nb); len(r.Addrs) > 0 {
			out = append(out, r)
		}
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
		Load:  &wire.Load{Rtl: nb.load.RTL, Rpl: nb.load.RPL, Idle: slots(nb.idle)},
	}
}

func (n *Node) removeLocked(id peer.ID) {
	if _, ok := n.nbrs[id]; ok {
		delete(n.nbrs, id)
		n.h.UnprotectNeighbour(id)
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
