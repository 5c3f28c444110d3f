package host

import (
	"fmt"
	"sync/atomic"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/network"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
)

// Per-connection allowances from which the resource limits derive.
const (
	memoryPerConn    = 2 << 20  // bytes of libp2p buffers allowed per connection
	minMemory        = 64 << 20 // floor, so a tiny cap still leaves room for the DHT
	streamsPerConn   = 8        // overlay protocols use a few short streams each
	minTransient     = 4        // transient (not yet upgraded) connections
	lowWaterPercent  = 50       // connection manager trims down to this share
	highWaterPercent = 75       // ... once this share of the cap is open
)

// Limits are the resource limits a Host derives from the contributor's
// connection cap C (Config.MaxConns):
//
//   - system scope: C connections (inbound and outbound alike), C file
//     descriptors, 8·C streams, max(64 MiB, 2 MiB·C) of memory;
//   - transient scope: max(4, C/4) connections, 2·C streams and a quarter of
//     the memory;
//   - connection manager: trimming starts when 75 % of C are open and brings
//     the count back to 50 %, so the resource manager, which refuses
//     connections outright, is the last line rather than the usual one.
//
// Other scopes (per peer, per protocol, per service) keep go-libp2p's defaults
// scaled to the memory and descriptors above.
type Limits struct {
	MaxConns  int
	Memory    int64
	Streams   int
	Transient int
	LowWater  int
	HighWater int
}

// DeriveLimits computes the Limits for a connection cap; maxConns <= 0 means
// DefaultMaxConns.
func DeriveLimits(maxConns int) Limits {
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	l := Limits{
		MaxConns:  maxConns,
		Memory:    max(minMemory, int64(maxConns)*memoryPerConn),
		Streams:   streamsPerConn * maxConns,
		Transient: max(minTransient, maxConns/4),
		LowWater:  max(1, maxConns*lowWaterPercent/100),
		HighWater: max(2, maxConns*highWaterPercent/100),
	}
	return l
}

// concrete returns the resource manager's limit configuration.
func (l Limits) concrete() rcmgr.ConcreteLimitConfig {
	scaling := rcmgr.DefaultLimits
	// libp2p's own service and protocol limits (identify, relay, autonat,
	// holepunch) are registered before scaling.
	libp2p.SetDefaultServiceLimits(&scaling)
	defaults := scaling.Scale(l.Memory, l.MaxConns)
	partial := rcmgr.PartialLimitConfig{
		System: rcmgr.ResourceLimits{
			Conns:           rcmgr.LimitVal(l.MaxConns),
			ConnsInbound:    rcmgr.LimitVal(l.MaxConns),
			ConnsOutbound:   rcmgr.LimitVal(l.MaxConns),
			FD:              rcmgr.LimitVal(l.MaxConns),
			Streams:         rcmgr.LimitVal(l.Streams),
			StreamsInbound:  rcmgr.LimitVal(l.Streams),
			StreamsOutbound: rcmgr.LimitVal(l.Streams),
			Memory:          rcmgr.LimitVal64(l.Memory),
		},
		Transient: rcmgr.ResourceLimits{
			Conns:           rcmgr.LimitVal(l.Transient),
			ConnsInbound:    rcmgr.LimitVal(l.Transient),
			ConnsOutbound:   rcmgr.LimitVal(l.Transient),
			FD:              rcmgr.LimitVal(l.Transient),
			Streams:         rcmgr.LimitVal(2 * l.Streams / streamsPerConn),
			StreamsInbound:  rcmgr.LimitVal(2 * l.Streams / streamsPerConn),
			StreamsOutbound: rcmgr.LimitVal(2 * l.Streams / streamsPerConn),
			Memory:          rcmgr.LimitVal64(l.Memory / 4),
		},
	}
	return partial.Build(defaults)
}

// newResourceManager builds the resource manager enforcing l, whose
// system and transient limits follow liveLimiter.set.
func newResourceManager(l Limits) (network.ResourceManager, *liveLimiter, error) {
	ll := newLiveLimiter(l)
	rm, err := rcmgr.NewResourceManager(ll)
	if err != nil {
		return nil, nil, fmt.Errorf("resource manager: %w", err)
	}
	return rm, ll, nil
}

// liveLimiter gives the resource manager the limits of Limits and lets
// the system and transient ones, those the connection cap sets, change
// while it runs: the resource manager keeps the Limit a scope was built
// with and reads it at every reservation, so a liveLimit read through is
// in force at the next connection. The other scopes (peers, protocols,
// services) keep the limits of the cap at start.
type liveLimiter struct {
	rcmgr.Limiter
	system, transient liveLimit
}

func newLiveLimiter(l Limits) *liveLimiter {
	ll := &liveLimiter{Limiter: rcmgr.NewFixedLimiter(l.concrete())}
	ll.set(l)
	return ll
}

// set puts the system and transient limits of l in force.
func (ll *liveLimiter) set(l Limits) {
	fixed := rcmgr.NewFixedLimiter(l.concrete())
	ll.system.v.Store(&limitOf{fixed.GetSystemLimits()})
	ll.transient.v.Store(&limitOf{fixed.GetTransientLimits()})
}

func (ll *liveLimiter) GetSystemLimits() rcmgr.Limit    { return &ll.system }
func (ll *liveLimiter) GetTransientLimits() rcmgr.Limit { return &ll.transient }

// limitOf boxes a Limit for an atomic pointer.
type limitOf struct{ rcmgr.Limit }

// liveLimit is a Limit read through to the one last stored.
type liveLimit struct{ v atomic.Pointer[limitOf] }

func (l *liveLimit) GetMemoryLimit() int64                  { return l.v.Load().GetMemoryLimit() }
func (l *liveLimit) GetStreamLimit(d network.Direction) int { return l.v.Load().GetStreamLimit(d) }
func (l *liveLimit) GetStreamTotalLimit() int               { return l.v.Load().GetStreamTotalLimit() }
func (l *liveLimit) GetConnLimit(d network.Direction) int   { return l.v.Load().GetConnLimit(d) }
func (l *liveLimit) GetConnTotalLimit() int                 { return l.v.Load().GetConnTotalLimit() }
func (l *liveLimit) GetFDLimit() int                        { return l.v.Load().GetFDLimit() }
