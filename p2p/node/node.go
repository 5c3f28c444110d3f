package node

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/share"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// Node is one live overlay peer. Create it with New, then Join, run Serve,
// and end with Leave or Close.
type Node struct {
	h     *host.Host
	cfg   Config
	queue Queue
	gate  *admission.Gate // over the queue's record of tasks seen, or one in memory
	log   *slog.Logger

	// sharer gives waiting tasks to idle peers (share.go); nil when the
	// queue cannot give tasks away or load balancing is off.
	sharer *share.Sharer

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
	// elsewhere is where the node joins while the manager refuses
	// Config.Point as too deep to split (zonecert.ErrTooDeep); nil
	// otherwise.
	elsewhere can.Point
	// suspects are neighbours that missed DeadAfter heartbeats, to report
	// to the manager; reported is when each was last reported.
	suspects map[peer.ID]bool
	reported map[peer.ID]time.Time
	wide     map[peer.ID]struct{} // peers beyond the neighbours sampled while the coordinate is young (heartbeat.go)
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
		wide:     map[peer.ID]struct{}{},
		notify:   map[peer.ID]bool{},
		kick:     make(chan struct{}, 1),
		seq:      uint64(time.Now().UnixNano()),
	}
	seen, ok := q.(admission.SeenSet)
	if !ok {
		seen = admission.NewMemory()
		n.log.Warn("Task queue keeps no record of tasks seen; replayed tasks are refused only until this peer restarts")
	}
	n.gate = admission.NewGate(h.ID(), cfg.Manager, seen, cfg.Dim, cfg.HostRTT, n.log)
	if sq, ok := q.(share.Queue); ok && cfg.MaxPieces > 0 {
		if n.sharer, err = share.New(sharing{n}, sq, cfg.Dim, cfg.HostRTT, cfg.Heartbeat, n.log); err != nil {
			return nil, fmt.Errorf("new node: %w", err)
		}
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
		n.mu.Lock()
		n.tooDeepLocked(err)
		n.mu.Unlock()
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
		now := time.Now()
		n.book.Forget(now)   // zones long gone
		n.refreshLocked(now) // certificates expire
		n.mu.Unlock()
		n.heartbeatRound(ctx, all)
		if n.sharer != nil {
			wg.Go(func() { n.sharer.Round(ctx) }) // offers wait on takers; heartbeats must not
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

// answer answers one request of protocol kind on stream s (wire.Answer),
// and logs a failure at Debug.
func (n *Node) answer(s network.Stream, kind string, req wire.Message, maxReq, maxResp int, answer func(ctx context.Context, from peer.ID) wire.Message) {
	if err := wire.Answer(s, req, maxReq, maxResp, answer); err != nil {
		n.log.Debug(kind+" not answered", "peer", s.Conn().RemotePeer(), "err", err)
	}
}

// Close unregisters the handlers. The host is the caller's to close.
func (n *Node) Close() error {
	for _, p := range []string{wire.HeartbeatProtocol, wire.InsertProtocol, wire.HandoverProtocol} {
		n.h.RemoveStreamHandler(protocol.ID(p))
	}
	return nil
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
