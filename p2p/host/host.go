package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p"
	dht "github.com/libp2p/go-libp2p-kad-dht"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/event"
	lphost "github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/metrics"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	drouting "github.com/libp2p/go-libp2p/p2p/discovery/routing"
	"github.com/libp2p/go-libp2p/p2p/protocol/identify"
	"github.com/libp2p/go-libp2p/p2p/security/noise"
	libp2ptls "github.com/libp2p/go-libp2p/p2p/security/tls"
	quic "github.com/libp2p/go-libp2p/p2p/transport/quic"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"
)

// UserAgent is announced to other peers through identify.
const UserAgent = "hivecrawl/0.1"

// Host is a running libp2p host with its DHT and the counters the client
// reads. It embeds the libp2p host, so ID, Addrs, Connect, NewStream,
// SetStreamHandler and the rest are available directly.
type Host struct {
	lphost.Host

	// Bandwidth counts the bytes sent and received by every connection, per
	// peer and per protocol; the resource governor and the UI read it.
	Bandwidth *metrics.BandwidthCounter
	// Limits are the resource limits the host started with; SetMaxConns
	// changes those in force (MaxConns).
	Limits Limits
	live   *liveLimiter
	// maxConns is the cap in force (SetMaxConns).
	maxConns atomic.Int64

	dht       *dht.IpfsDHT
	disc      *drouting.RoutingDiscovery
	bootstrap []peer.AddrInfo
	nat       *natCounters
	reachSub  event.Subscription
	log       *slog.Logger
	// known are peers remembered from earlier runs (AddKnown), tried
	// beside the bootstrap peers.
	knownMu sync.Mutex
	known   []peer.AddrInfo
	// stop ends the host's own goroutines (the relay advertisement).
	stop context.CancelFunc
	// passingMu guards passing: the peers dialled for one purpose only,
	// with when each was marked (Passing).
	passingMu sync.Mutex
	passing   map[peer.ID]time.Time
}

// New builds and starts a host from cfg. The caller owns it and must Close
// it. New does not contact the bootstrap peers; call Bootstrap for that.
func New(ctx context.Context, cfg Config) (*Host, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("new host: %w", err)
	}
	var (
		key crypto.PrivKey
		err error
	)
	if cfg.KeyFile != "" {
		key, err = LoadOrCreateKey(cfg.KeyFile)
	} else {
		key, _, err = crypto.GenerateEd25519Key(nil)
	}
	if err != nil {
		return nil, fmt.Errorf("new host: %w", err)
	}
	bootstrap, err := ParseBootstrap(cfg.Bootstrap)
	if err != nil {
		return nil, fmt.Errorf("new host: %w", err)
	}
	if err := checkPorts(cfg.listenAddrs()); err != nil {
		return nil, fmt.Errorf("new host: %w", err)
	}
	limits := DeriveLimits(cfg.MaxConns)
	rm, live, err := newResourceManager(limits)
	if err != nil {
		return nil, fmt.Errorf("new host: %w", err)
	}
	cm, err := newConnManager(limits)
	if err != nil {
		rm.Close()
		return nil, fmt.Errorf("new host: %w", err)
	}
	bw := metrics.NewBandwidthCounter()
	opts := []libp2p.Option{
		libp2p.Identity(key),
		libp2p.ListenAddrStrings(cfg.listenAddrs()...),
		libp2p.Transport(tcp.NewTCPTransport),
		libp2p.Transport(quic.NewTransport),
		libp2p.Security(noise.ID, noise.New),
		libp2p.Security(libp2ptls.ID, libp2ptls.New),
		libp2p.ResourceManager(rm),
		libp2p.ConnectionManager(cm),
		libp2p.BandwidthReporter(bw),
		libp2p.UserAgent(UserAgent),
		libp2p.DisableMetrics(),
	}
	var self atomic.Pointer[Host] // for the relay source, once built
	nat := newNATCounters()
	opts = append(opts, natOptions(cfg, bootstrap, nat, self.Load)...)
	lh, err := libp2p.New(opts...)
	if err != nil {
		// libp2p closes what it was given only when it got far enough.
		return nil, errors.Join(fmt.Errorf("new host: %w", err), cm.Close())
	}
	sub, err := lh.EventBus().Subscribe(new(event.EvtLocalReachabilityChanged))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("new host: %w", err), lh.Close())
	}
	go nat.follow(sub)
	h := &Host{
		Host:      lh,
		Bandwidth: bw,
		Limits:    limits,
		live:      live,
		bootstrap: bootstrap,
		nat:       nat,
		reachSub:  sub,
		log:       cfg.logger().With("peer", lh.ID().String()),
		passing:   map[peer.ID]time.Time{},
	}
	h.maxConns.Store(int64(limits.MaxConns))
	self.Store(h)
	var bg context.Context
	bg, h.stop = context.WithCancel(context.Background())
	if !cfg.NoDHT {
		d, err := newDHT(lh, cfg.Public, h.bootstrapPeers)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("new host: %w", err), h.Close())
		}
		h.dht, h.disc = d, drouting.NewRoutingDiscovery(d)
		go h.advertiseRelay(bg, cfg.Public)
	}
	h.log.Info("Host started", "addrs", fmt.Sprint(lh.Addrs()), "max_conns", limits.MaxConns, "public", cfg.Public)
	return h, nil
}

// SetMaxConns puts the resource limits of connection cap n (DeriveLimits;
// 0 = DefaultMaxConns) in force at once: the system and transient scopes'
// connections, descriptors, streams and memory. Open connections over a
// lowered cap stay; no new one opens until the count is under it. The
// connection manager keeps trimming by the watermarks of the cap at start.
func (h *Host) SetMaxConns(n int) {
	l := DeriveLimits(n)
	h.live.set(l)
	h.maxConns.Store(int64(l.MaxConns))
}

// MaxConns returns the connection cap in force.
func (h *Host) MaxConns() int { return int(h.maxConns.Load()) }

// AddrInfo returns the peer's ID and listen addresses.
func (h *Host) AddrInfo() peer.AddrInfo {
	return peer.AddrInfo{ID: h.ID(), Addrs: h.Addrs()}
}

// IdentifyWait returns a channel closed once libp2p's identify exchange on
// c has been taken in (the peer's addresses and protocols are in the
// peerstore), starting it if it has not started.
func (h *Host) IdentifyWait(c network.Conn) <-chan struct{} {
	return h.Host.(interface{ IDService() identify.IDService }).IDService().IdentifyWait(c)
}

// P2PAddrs returns the listen addresses with /p2p/<id> appended, the form
// Config.Bootstrap expects.
func (h *Host) P2PAddrs() []string {
	mas, err := peer.AddrInfoToP2pAddrs(&peer.AddrInfo{ID: h.ID(), Addrs: h.Addrs()})
	if err != nil {
		return nil
	}
	out := make([]string, len(mas))
	for i, m := range mas {
		out[i] = m.String()
	}
	return out
}

// Close stops the DHT and the host, closing every connection. It is bounded
// by libp2p's own shutdown timeouts.
func (h *Host) Close() error {
	var err error
	if h.dht != nil {
		err = h.dht.Close()
	}
	h.stop()
	return errors.Join(err, h.reachSub.Close(), h.Host.Close())
}
