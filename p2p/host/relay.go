package host

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/host/autorelay"
	"github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/proto"
	"github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
)

// VolunteerRelay is what a volunteer's peer lends others as a relay once
// AutoNAT finds it reachable from the internet: a few short circuits
// carrying overlay messages, not crawl data. A circuit ends after 2 min
// or 1 MiB each way; the peers then open another, or have punched a
// direct connection by then.
func VolunteerRelay() relay.Resources {
	r := relay.DefaultResources()
	r.Limit = &relay.RelayLimit{Duration: 2 * time.Minute, Data: 1 << 20}
	r.MaxReservations = 16
	r.MaxCircuits = 4
	r.MaxReservationsPerIP = 4
	return r
}

// OperatorRelay is the manager's relay: the operator's machine, sized
// for every volunteer behind a NAT keeping a reservation. Many homes can
// share one address behind a carrier's NAT, hence the per-IP figure.
func OperatorRelay() relay.Resources {
	r := relay.DefaultResources()
	r.Limit = &relay.RelayLimit{Duration: 10 * time.Minute, Data: 8 << 20}
	r.MaxReservations = 4096
	r.MaxCircuits = 32
	r.MaxReservationsPerIP = 64
	return r
}

// relayCandidates is how often, at most, autorelay asks for relays, and
// how long after start it waits before it settles for fewer than it
// wants.
const (
	relayCandidates = 15 * time.Second
	relayBootDelay  = 20 * time.Second
)

// natOptions returns the NAT-traversal options: the relay client, hole
// punching (counted in nat) and AutoNAT for every peer; relay and AutoNAT
// service for every peer too, which libp2p runs only while AutoNAT finds
// the peer reachable (a public peer is so from the start, with the
// operator's relay limits); and, for a peer behind a NAT, reservations
// with relays: the bootstrap peers first, then peers met in the overlay
// that offer relay service (self returns the host once it exists).
func natOptions(cfg Config, bootstrap []peer.AddrInfo, nat *natCounters, self func() *Host) []libp2p.Option {
	opts := []libp2p.Option{
		libp2p.EnableRelay(),
		libp2p.EnableHolePunching(holepunch.WithTracer(nat)),
		libp2p.EnableAutoNATv2(),
		libp2p.EnableNATService(),
	}
	if cfg.PortMap {
		opts = append(opts, libp2p.NATPortMap())
	}
	if cfg.Public {
		return append(opts,
			libp2p.ForceReachabilityPublic(),
			libp2p.EnableRelayService(relay.WithResources(OperatorRelay())),
		)
	}
	return append(opts,
		libp2p.EnableRelayService(relay.WithResources(VolunteerRelay())),
		libp2p.EnableAutoRelayWithPeerSource(relaySource(bootstrap, self),
			autorelay.WithMinCandidates(1),
			autorelay.WithNumRelays(2),
			autorelay.WithBootDelay(relayBootDelay),
			autorelay.WithMinInterval(relayCandidates),
			autorelay.WithBackoff(time.Minute),
		),
	)
}

// relaySource offers autorelay the bootstrap peers, then the connected
// peers that said (through identify) they serve as relays.
func relaySource(bootstrap []peer.AddrInfo, self func() *Host) autorelay.PeerSource {
	return func(ctx context.Context, num int) <-chan peer.AddrInfo {
		out := make(chan peer.AddrInfo, num)
		defer close(out)
		sent := 0
		send := func(ai peer.AddrInfo) bool {
			if sent >= num {
				return false
			}
			out <- ai
			sent++
			return true
		}
		for _, ai := range bootstrap {
			if !send(ai) {
				return out
			}
		}
		h := self()
		if h == nil {
			return out
		}
		offered := map[peer.ID]bool{h.ID(): true}
		for _, ai := range bootstrap {
			offered[ai.ID] = true
		}
		for _, id := range h.Network().Peers() {
			if offered[id] {
				continue
			}
			if ok, _ := h.Peerstore().SupportsProtocols(id, proto.ProtoIDv2Hop); len(ok) == 0 {
				continue
			}
			offered[id] = true
			if !send(peer.AddrInfo{ID: id, Addrs: h.Peerstore().Addrs(id)}) {
				return out
			}
		}
		// Then relays the DHT knows of, which need no manager.
		fctx, cancel := context.WithTimeout(ctx, relayLookup)
		defer cancel()
		found, err := h.FindPeers(fctx, RelayRendezvous, num-sent+len(offered))
		if err != nil {
			h.log.Debug("No relays from the DHT", "err", err)
		}
		for _, ai := range found {
			if !offered[ai.ID] && len(ai.Addrs) > 0 && !send(ai) {
				break
			}
		}
		return out
	}
}

// RelayRendezvous is the rendezvous string under which peers that serve
// as relays advertise themselves on the DHT.
const RelayRendezvous = "hivecrawl/relay/1"

// relayLookup bounds a DHT lookup for relays.
const relayLookup = 10 * time.Second

// advertiseRelay keeps this peer announced under RelayRendezvous while
// it serves as a relay: always for a public peer, and for a volunteer
// while AutoNAT finds it reachable. It ends with ctx.
func (h *Host) advertiseRelay(ctx context.Context, public bool) {
	h.serveAdvertise(ctx, RelayRendezvous, func() bool {
		return public || network.Reachability(h.nat.reach.Load()) == network.ReachabilityPublic
	})
}
