package host

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
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
	// peers: direct ones, direct ones that crossed this peer's NAT and
	// the other's (hole punching), and through a relay.
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
	ok, fail int
}

func newNATCounters() *natCounters { return &natCounters{} }

// Trace implements holepunch.EventTracer: it counts the hole punches
// this peer took part in, on either end.
func (n *natCounters) Trace(evt *holepunch.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch e := evt.Evt.(type) {
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
	s.HolePunches, s.HolePunchFailures = h.nat.ok, h.nat.fail
	h.nat.mu.Unlock()
	for _, c := range h.Network().Conns() {
		switch h.linkOf(c) {
		case LinkRelayed:
			s.Relayed++
		case LinkHolePunched:
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
		switch l := h.linkOf(c); l {
		case LinkRelayed:
			if link == LinkNone {
				link = l
			}
		default:
			return l
		}
	}
	return link
}

// linkOf says what kind of link c is. A direct connection whose local
// end sits behind a NAT to a peer that announces addresses through
// relays (so does it) crossed both NATs: hole-punched, by DCUtR or by a
// plain dial through a mapping a punch left open, whoever dialled.
func (h *Host) linkOf(c network.Conn) string {
	switch {
	case c.Stat().Limited || isRelayed(c.RemoteMultiaddr()):
		return LinkRelayed
	case h.behindNAT(c.LocalMultiaddr()) && h.announcesRelay(c.RemotePeer()):
		return LinkHolePunched
	}
	return LinkDirect
}

// behindNAT reports whether a connection whose local end is local sits
// behind a NAT, this host's interface addresses deciding when local names
// none (behindNAT).
func (h *Host) behindNAT(local ma.Multiaddr) bool {
	return behindNAT(local, func() []ma.Multiaddr {
		own, _ := h.Network().InterfaceListenAddresses() // none on error: behind, as before
		return own
	})
}

// behindNAT reports whether a connection's local end, local, sits behind
// a NAT: its address is no public one. A QUIC dial made from a socket of
// its own names no address: quic-go binds that socket to 0.0.0.0 when no
// listener holds the source address the route table offers (on a machine
// with several addresses in one subnet, the subnet's first), and a public
// peer took its own connection for one through a NAT. Then the host's
// own interface addresses decide: a host with a public one is not behind
// a NAT.
func behindNAT(local ma.Multiaddr, own func() []ma.Multiaddr) bool {
	if ip, err := manet.ToIP(local); err == nil && ip.IsUnspecified() {
		return !slices.ContainsFunc(own(), manet.IsPublicAddr)
	}
	return !manet.IsPublicAddr(local)
}

// announcesRelay reports whether p announced an address through a relay,
// as a peer behind a NAT does.
func (h *Host) announcesRelay(p peer.ID) bool {
	return slices.ContainsFunc(h.Peerstore().Addrs(p), isRelayed)
}

// isRelayed reports whether a goes through a relay (/p2p-circuit).
func isRelayed(a ma.Multiaddr) bool {
	_, err := a.ValueForProtocol(ma.P_CIRCUIT)
	return err == nil
}
