package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	manet "github.com/multiformats/go-multiaddr/net"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/p2p/rtt"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/proto/upload"
)

// Network options' defaults.
const (
	// retryJoin is the wait after a failed attempt to enter the overlay.
	retryJoin = 3 * time.Second
	// leaveTimeout bounds a graceful leave (handover included).
	leaveTimeout = 15 * time.Second
	// defaultDownloadMbps and defaultMemoryGB stand in for unlimited caps
	// in the load figures (design.md §5), so an uncapped peer looks like a
	// typical home connection rather than infinitely capable.
	defaultDownloadMbps = 8
	defaultMemoryGB     = 1
)

// NetworkOptions tune the client's part in a network. Zero values take
// the defaults noted.
type NetworkOptions struct {
	// Listen are the libp2p listen multiaddrs. Default: p2p/host's (every
	// interface, port 4901); solo mode listens on 127.0.0.1 only.
	Listen []string
	// Heartbeat is the overlay's heartbeat interval; default 2s.
	Heartbeat time.Duration
	// PeerExtra and HostExtra add emulated latency to the overlay's
	// measurements of peers (by the IP the peer is connected from) and of
	// web hosts (p2p/emulate). Test and demo only.
	PeerExtra func(remoteIP string) time.Duration
	HostExtra func(host string) time.Duration
	// NoLBI turns load balancing off, on insert and by sharing waiting
	// tasks: a task stays with the owner of its point however loaded (for
	// comparisons).
	NoLBI   bool
	dataDir string
	// NoDHT runs the peer without the network's DHT: no advertisement,
	// no lookups; it finds the overlay through the manager, its
	// remembered peers and the profile's bootstrap peers. Solo mode sets
	// it (a one-peer overlay has nothing to discover), and so must any
	// process that also runs the manager's storage module: gowarc sets
	// google/uuid's process-wide pool switch for every WARC record while
	// kad-dht reads it for every query, a data race between the two
	// libraries.
	NoDHT bool
	// version is the client's release, stated to the manager, which may
	// hold it against the network's minimum; the client sets it from
	// Options.Version.
	version string
	// allowLoopback lets the RTT prober measure loopback web hosts; the
	// client sets it from Options.AllowLoopback.
	allowLoopback bool
	// allowTestNets likewise admits the documentation ranges.
	allowTestNets bool
	// sockets, set by the client, is the contributor's connection cap
	// (governor.Conns), which the RTT prober's connections count against.
	sockets rtt.Sockets
	// refused, set by the client, is why the stored profile is under
	// the politeness floor (internal/floor): the peer then dials none of
	// its addresses and takes no part.
	refused error
}

// network is the client's part in a Hivecrawl network: its libp2p host,
// its CAN node over the task queue, and the manager it reports to.
type network struct {
	prof    *profile.Profile
	manager peer.ID
	key     crypto.PubKey
	h       *host.Host
	node    *node.Node
	log     *slog.Logger
	member  atomic.Bool // holds a zone and told the manager so
	// capacity is the load figures' scale, reported to the manager.
	capacity can.Capacity
	// bounds is the signed bounds record last checked; only serve's
	// goroutine, which asks the manager, touches it.
	bounds []byte
	// book remembers the overlay members met, to join through them when
	// the manager cannot be reached; saved is when it was last written
	// (serve's goroutine only).
	book  *host.PeerBook
	saved time.Time
	// advertising is set once the peer announces its membership on the
	// DHT.
	advertising atomic.Bool
	// silentSince is when the manager stopped answering, nil while it
	// answers; onBack (the task manager's RetryNow) runs when it answers
	// again, so that held results go out at once.
	silentSince atomic.Pointer[time.Time]
	onBack      func()
	// version is the client's release, stated in entry requests.
	version string
	// outdated is the manager's word that this client is older than the
	// network's minimum version, and how to update; nil while it is not.
	// retired is set once the client left the overlay for that reason:
	// a node that left does not join again, so only a restart (of the
	// updated program) brings it back.
	outdated atomic.Pointer[string]
	retired  atomic.Bool
	// refused is why this client takes no task from the network (its
	// policy is under the politeness floor, internal/floor, or the
	// manager withdrew this client's request-signing key); nil while it
	// takes them. The first reason stays. kick wakes serve to leave the
	// overlay.
	refused atomic.Pointer[string]
	kick    chan struct{}
	// adversary, demo only, runs beside the member (Adversary.Overlay).
	adversary func(context.Context)
	// endLeases, set by the client, ends every lease the task manager's
	// running crawls hold (taskmgr.Manager.EndLeases); endLease one
	// (taskmgr.Manager.EndLease).
	endLeases func(error)
	endLease  func(id string, cause error) bool
}

// errOutdated: the manager gives this client's version no task.
var errOutdated = errors.New("this client's version is older than the network's minimum")

// newNetwork starts the libp2p host for prof. The node is attached later
// (attachNode), once the task manager it feeds exists.
func newNetwork(ctx context.Context, prof *profile.Profile, dataDir string, cfg config.Config, opts NetworkOptions, log *slog.Logger) (*network, error) {
	key, err := prof.Key()
	if err != nil {
		return nil, fmt.Errorf("network profile: %w", err)
	}
	mid, err := prof.ManagerID()
	if err != nil {
		return nil, fmt.Errorf("network profile: %w", err)
	}
	boot := prof.Bootstrap
	if opts.refused != nil {
		boot = nil // not one dial to an address the floor refuses
	}
	h, err := host.New(ctx, host.Config{
		ListenAddrs: opts.Listen,
		KeyFile:     filepath.Join(dataDir, paths.PeerKeyName),
		MaxConns:    overlayConns(cfg),
		Bootstrap:   boot,
		NoDHT:       opts.NoDHT,
		Logger:      log,
	})
	if err != nil {
		return nil, fmt.Errorf("start overlay host: %w", err)
	}
	book, err := host.OpenPeerBook(filepath.Join(dataDir, fmt.Sprintf(paths.PeerBookPattern, mid)), host.DefaultBookSize)
	if err != nil {
		log.Warn("Remembered peers not read", "err", err)
	}
	nw := &network{prof: prof, manager: mid, key: key, h: h, log: log, book: book, version: opts.version, kick: make(chan struct{}, 1)}
	if opts.refused != nil {
		nw.retired.Store(true) // never joins: nothing to leave
		nw.refuse(opts.refused)
		return nw, nil
	}
	h.AddKnown(book.Peers())
	return nw, nil
}

// refuse records that this client refuses the network because its
// policy is under the politeness floor (err, from internal/floor, in
// words for the volunteer).
func (nw *network) refuse(err error) {
	if nw.stop(err.Error() + ". Hivecrawl takes no task from this network: ask its operator to change it, or leave the network ('hivecrawl leave')") {
		nw.log.Warn("The network's policy is under the politeness floor; taking no task from it", "reason", err)
	}
}

// withdraw ends every lease this client holds, at once, because the
// manager withdrew its request-signing key (reason is the operator's),
// then takes no task any more: claims would be refused.
func (nw *network) withdraw(reason string) {
	why := "the network's operator withdrew this volunteer's request-signing key"
	if reason != "" && !strings.Contains(why, reason) {
		why += " (" + reason + ")"
	}
	if nw.endLeases != nil {
		nw.endLeases(errors.New(why)) // first: not one request more
	}
	if nw.stop("Hivecrawl takes no task from this network any more: " + why + ". Ask its operator why, or leave the network ('hivecrawl leave')") {
		nw.log.Warn("Request-signing key withdrawn by the manager; running crawls stopped, taking no task", "reason", reason)
	}
}

// revoked takes the manager's revocation r: of one lease (its site
// opted out), which ends that crawl alone, or of every lease (the key
// withdrawn).
func (nw *network) revoked(r lease.Revocation) {
	if r.TaskID == "" {
		nw.withdraw(r.Reason)
		return
	}
	why := cmp.Or(r.Reason, "the manager ended this task's lease")
	if nw.endLease != nil && nw.endLease(r.TaskID, errors.New(why)) {
		nw.log.Info("Lease ended by the manager; the crawl stopped", "task", r.TaskID, "host", r.Host, "reason", why)
	}
}

// stop records why this client takes no task from the network (the
// first reason stays; it reports whether why was the first) and wakes
// serve to leave the overlay. The status shows the client paused with
// the reason until it restarts.
func (nw *network) stop(why string) bool {
	if !nw.refused.CompareAndSwap(nil, &why) {
		return false
	}
	select {
	case nw.kick <- struct{}{}:
	default:
	}
	return true
}

// pauseReason is why the network gives this client nothing to do: its
// refusal of the network's policy, or the manager's word that it is
// outdated; "" when neither.
// silence says since when the manager has not answered, "" while it
// answers: a reason in the status (the client crawls what it has and
// holds the results).
func (nw *network) silence() string {
	since := nw.silentSince.Load()
	if since == nil {
		return ""
	}
	return "The manager does not answer (since " + since.Format("15:04") + "): new tasks wait and results are kept until it does"
}

func (nw *network) pauseReason() string {
	if p := nw.refused.Load(); p != nil {
		return *p
	}
	return nw.outdatedReason()
}

// Expired reports a task cancelled for waiting too long to the manager
// (taskmgr.Reporter).
func (nw *network) Expired(ctx context.Context, raw []byte) error {
	_, err := report.Send(ctx, nw.h, nw.manager, report.Report{Task: raw, Reason: report.Expired})
	return err
}

var _ taskmgr.Reporter = (*network)(nil)

// HandBack gives a task no neighbour could queue at a leave back to the
// manager, which issues its host again at once.
func (nw *network) HandBack(ctx context.Context, raw []byte) error {
	_, err := report.Send(ctx, nw.h, nw.manager, report.Report{Task: raw, Reason: report.HandedBack})
	return err
}

// uploader returns the storage module's client for this network; lim
// meters what it sends (the upload cap).
func (nw *network) uploader(nickname string, lim crawler.Limiter) *upload.Uploader {
	return &upload.Uploader{Host: nw.h, Storage: nw.manager, Manager: nw.key, Nickname: nickname, Limiter: lim}
}

// attachNode creates the CAN node that queues accepted tasks in q. It
// joins at a point hashed from the peer ID, so a peer rejoins where it
// was; with the profile's bounds it then moves to its mapped coordinate
// once Vivaldi is confident of it. opts are the options the client
// resolved for newNetwork (allowLoopback among them).
func (nw *network) attachNode(q node.Queue, cfg config.Config, opts NetworkOptions) error {
	nw.capacity = capacity(cfg)
	// The measurer answers the manager's measurements of web hosts, and
	// remembers them for the node's sharing: farthest hosts go first.
	m := rtt.New(rtt.Config{Extra: opts.HostExtra, AllowLoopback: opts.allowLoopback, AllowTestNets: opts.allowTestNets, Sockets: opts.sockets})
	n, err := node.New(nw.h, q, node.Config{
		Point:     can.HashPoint(nw.h.ID().String(), can.DefaultDim),
		Manager:   nw.key,
		Authority: zoneAuthority{nw},
		Heartbeat: opts.Heartbeat,
		Bounds:    nw.prof.Bounds,
		// A network with coordinate-aware placement trains its bounds
		// from the members' coordinates; the first move waits for them.
		AwaitBounds: nw.prof.Bounds != nil,
		Capacity:    nw.capacity,
		MaxPieces:   maxPieces(cfg, opts.NoLBI),
		// At least the politeness wait between a running task's last
		// request here and the heir's first.
		HandoverPause: max(time.Duration(cfg.Delay), node.DefaultHandoverPause),
		PeerExtra:     nw.peerExtra(opts.PeerExtra),
		HostRTT:       m.Last,
		Logger:        nw.log,
	})
	if err != nil {
		return err
	}
	nw.node = n
	nw.h.SetStreamHandler(lease.RevokeProtocol, lease.RevokeHandler(nw.manager, nw.revoked))
	fromManager := func(p peer.ID) bool { return p == nw.manager } // only it locates hosts
	nw.h.SetStreamHandler(wire.MeasureProtocol, rtt.Handler(m, n.Coordinate, fromManager, nw.log))
	return nil
}

// peerExtra adapts an emulated delay by IP to the node's by peer ID.
func (nw *network) peerExtra(byIP func(string) time.Duration) func(peer.ID) time.Duration {
	if byIP == nil {
		return nil
	}
	return func(id peer.ID) time.Duration {
		for _, c := range nw.h.Network().ConnsToPeer(id) {
			if ip, err := manet.ToIP(c.RemoteMultiaddr()); err == nil {
				return byIP(ip.String())
			}
		}
		return 0
	}
}

// serve enters the overlay and keeps the peer in it until ctx ends: it
// connects to the manager and asks it for a zone, then runs the node,
// which renews its certificates with the manager and asks again should it
// lose its zones; here the peer book is kept and the manager's word on
// this version heeded.
func (nw *network) serve(ctx context.Context) error {
	hb := make(chan error, 1)
	go func() { hb <- nw.node.Serve(ctx) }()
	if nw.adversary != nil {
		go nw.adversary(ctx)
	}
	if nw.retired.Load() {
		// Refused before it started: nothing to dial.
	} else if err := nw.h.Bootstrap(ctx); err != nil {
		nw.log.Info("Manager not reachable yet; retrying", "err", err)
	}
	for {
		wait := entry.RenewEvery
		switch {
		case nw.refused.Load() != nil:
			nw.retire(*nw.refused.Load())
		case nw.retired.Load():
			// Out of the overlay until restarted: nothing to ask.
		case nw.outdated.Load() != nil && nw.member.Load():
			nw.retire("this version is older than the network's minimum")
		case !nw.member.Load():
			if err := nw.enter(ctx); errors.Is(err, errOutdated) {
				// Asked again now and then: the operator may lower the
				// minimum.
			} else if err != nil {
				nw.log.Info("Not in the overlay yet; retrying", "err", err)
				wait = retryJoin
			}
		case len(nw.node.Zones()) > 0:
			nw.remember(ctx)
		}
		select {
		case <-ctx.Done():
			<-hb
			return nil
		case <-nw.kick:
		case <-time.After(wait):
		}
	}
}

// leave hands the zone and the unfinished tasks to a neighbour. The task
// manager must have stopped.
func (nw *network) leave() error {
	if len(nw.node.Zones()) == 0 {
		return nil
	}
	// The neighbours of the moment are the ones to join through next
	// time; close writes the book.
	nw.noteNeighbours(time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	if err := nw.node.Leave(ctx); err != nil {
		return fmt.Errorf("leave the overlay: %w", err)
	}
	return nil
}

// close stops the node and the host.
func (nw *network) close() error {
	var err error
	if nw.node != nil {
		err = nw.node.Close()
	}
	err = errors.Join(err, nw.book.Save())
	return errors.Join(err, nw.h.Close())
}
