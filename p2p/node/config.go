package node

import (
	"log/slog"
	"math"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Defaults used when Config fields are zero.
const (
	DefaultHeartbeat = 2 * time.Second
	DefaultDeadAfter = 3
	// DefaultRenew is Config.Renew's default: the manager's membership
	// renewal (proto/entry.RenewEvery).
	DefaultRenew = 10 * time.Second
	// DefaultHandoverPause is Config.HandoverPause's default.
	DefaultHandoverPause = time.Second
)

// Config configures a Node.
type Config struct {
	// Dim is the CAN space's dimension; 0 means can.DefaultDim.
	Dim int `json:"dim,omitempty"`
	// Point is where this peer joins, in [0,1]^Dim.
	Point can.Point `json:"point"`
	// Manager is the key every task and zone certificate must be signed
	// with.
	Manager crypto.PubKey `json:"-"`
	// Authority is the manager's map of zones, which grants and renews
	// this peer's (authority.go).
	Authority zonecert.Authority `json:"-"`
	// Renew is how often the node renews its zone certificates; 0 means
	// DefaultRenew. The manager's certificates last three times as long.
	Renew time.Duration `json:"renew,omitempty"`
	// Heartbeat is the interval between heartbeats; 0 means
	// DefaultHeartbeat.
	Heartbeat time.Duration `json:"heartbeat,omitempty"`
	// DeadAfter is the number of missed heartbeats after which a neighbour
	// is dead; 0 means DefaultDeadAfter.
	DeadAfter int `json:"dead_after,omitempty"`
	// Capacity scales the load figures (design.md §5).
	Capacity can.Capacity `json:"capacity"`
	// MaxPieces is the contributor's N_pieces^max, from which the
	// overloading threshold derives; 0 disables load balancing on insert.
	MaxPieces int `json:"max_pieces,omitempty"`
	// TTL is the load-balancing TTL given to new inserts; 0 means
	// can.DefaultTTL, negative means 0: how many peers may pass a task on
	// to a lighter neighbour, the owner first (insert.go).
	TTL int `json:"ttl,omitempty"`
	// Bounds, when set, map the node's Vivaldi coordinate into the CAN
	// space: a node whose mapped point drifts further than its zone's
	// diagonal from the zone's centre moves there (design.md §4).
	// Nil keeps the node at Point. The manager's trained bounds replace
	// them (Node.SetBounds).
	Bounds *coord.Bounds `json:"-"`
	// AwaitBounds makes the node's first move wait for trained bounds
	// (SetBounds with an epoch above 0), for at most awaitSamples of its
	// coordinate's samples: moving by the operator's box and again soon
	// after by the trained one would cost two rejoins.
	AwaitBounds bool `json:"-"`
	// PeerExtra, when set, returns a delay added to every heartbeat RTT
	// measured to a peer (latency emulation, p2p/emulate). Test-only.
	PeerExtra func(peer.ID) time.Duration `json:"-"`
	// HostRTT, when set, returns this peer's own last measured round trip
	// to a web host (host:port; rtt.Measurer.Last): of the tasks waiting
	// here, the ones whose hosts are farthest are shared first (share.go).
	HostRTT func(hostPort string) (time.Duration, bool) `json:"-"`
	// HandoverPause is how long a leaving node that hands over running
	// tasks waits first: their crawls have just been stopped, and a host
	// may still be answering the last request when the heir starts on it.
	// Default DefaultHandoverPause; negative, none.
	HandoverPause time.Duration `json:"handover_pause,omitempty"`
	// Logger receives the node's log records; nil means slog.Default().
	Logger *slog.Logger `json:"-"`
}

func (c *Config) fill() {
	if c.Dim <= 0 {
		c.Dim = can.DefaultDim
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.DeadAfter <= 0 {
		c.DeadAfter = DefaultDeadAfter
	}
	if c.Renew <= 0 {
		c.Renew = DefaultRenew
	}
	if c.TTL == 0 {
		c.TTL = can.DefaultTTL
	} else if c.TTL < 0 {
		c.TTL = 0
	}
	if c.HandoverPause == 0 {
		c.HandoverPause = DefaultHandoverPause
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// threshold returns OT, +Inf when load balancing is off.
func (c *Config) threshold() float64 {
	if c.MaxPieces <= 0 {
		return math.Inf(1)
	}
	return can.Threshold(c.MaxPieces, c.Capacity)
}
