package host

import (
	"sync"
	"sync/atomic"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"
)

// NATStats is how a peer reaches and is reached by others: what AutoNAT
// found, whether it holds relay reservations, and its connections now,
// by kind.
type NATStats struct {
	// Reachability is AutoNAT's verdict: "public", "private" or "unknown".
	Reachability string `json:"reachability"`
	// RelayAddrs counts the addresses through relays the peer announces
	// (one per reservation and transport).
	RelayAddrs int `json:"relay_addrs"`
	// Direct, HolePunched and Relayed count the open connections to other
	// peers: dialled directly, made direct by DCUtR (its hole punch, or
	// its direct dial upgrading a relayed connection), and through a
	// relay.
	Direct      int `json:"direct"`
	HolePunched int `json:"hole_punched"`
	Relayed     int `json:"relayed"`
	// HolePunches and HolePunchFailures count the hole punches this peer
	// took part in since it started, by outcome.
	HolePunches       int `json:"hole_punches"`
	HolePunchFailures int `json:"hole_punch_failures"`
}

// natCounters follows hole punching (a holepunch.EventTracer) and
// AutoNAT's reachability for NATStats.
type natCounters struct {
	reach atomic.Int32 // network.Reachability

	mu       sync.Mutex
	punched  map[peer.ID]bool // peers a hole punch was tried with
	ok, fail int
}

func newNATCounters() *natCounters { return &natCounters{punched: map[peer.ID]bool{}} }

// Trace implements holepunch.EventTracer. Both ends of a hole punch see
// it start; a direct connection to a peer DCUtR ran with came from it
// (its direct dial, which a NAT mapping an earlier punch left open can
// let through, or its punch), even where only the other end's dial got
// through.
func (n *natCounters) Trace(evt *holepunch.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch e := evt.Evt.(type) {
	case *holepunch.StartHolePunchEvt:
		n.punched[evt.Remote] = true
	case *holepunch.DirectDialEvt:
		if e.Success {
			n.punched[evt.Remote] = true
		}
	case *holepunch.EndHolePunchEvt:
		if e.Success {
			n.ok++
		} else {
			n.fail++
		}
	}
}

// follow keeps reach up to date from the host's event bus until sub
// closes.
func (n *natCounters) follow(sub event.Subscription) {
	for e := range sub.Out() {
		n.reach.Store(int32(e.(event.EvtLocalReachabilityChanged).Reachability))
	}
}

// NAT returns the peer's NATStats now.
func (h *Host) NAT() NATStats {
	s := NATStats{Reachability: "unknown"}
	switch network.Reachability(h.nat.reach.Load()) {
	case network.ReachabilityPublic:
		s.Reachability = "public"
	case network.ReachabilityPrivate:
		s.Reachability = "private"
	}
	for _, a := range h.Addrs() {
		if isRelayed(a) {
			s.RelayAddrs++
		}
	}
	h.nat.mu.Lock()
	defer h.nat.mu.Unlock()
	s.HolePunches, s.HolePunchFailures = h.nat.ok, h.nat.fail
	for _, c := range h.Network().Conns() {
		switch {
		case c.Stat().Limited || isRelayed(c.RemoteMultiaddr()):
			s.Relayed++
		case h.nat.punched[c.RemotePeer()]:
			s.HolePunched++
		default:
			s.Direct++
		}
	}
	return s
}

// Link kinds: how this peer is connected to another now.
const (
	LinkNone        = ""
	LinkDirect      = "direct"
	LinkHolePunched = "hole-punched"
	LinkRelayed     = "relayed"
)

// Link says how this peer is connected to p now: by its best
// connection, a direct one before a relayed one.
func (h *Host) Link(p peer.ID) string {
	link := LinkNone
	for _, c := range h.Network().ConnsToPeer(p) {
		if c.Stat().Limited || isRelayed(c.RemoteMultiaddr()) {
			if link == LinkNone {
				link = LinkRelayed
			}
			continue
		}
		h.nat.mu.Lock()
		punched := h.nat.punched[p]
		h.nat.mu.Unlock()
		if punched {
			return LinkHolePunched
		}
		return LinkDirect
	}
	return link
}

// isRelayed reports whether a goes through a relay (/p2p-circuit).
func isRelayed(a ma.Multiaddr) bool {
	_, err := a.ValueForProtocol(ma.P_CIRCUIT)
	return err == nil
}
