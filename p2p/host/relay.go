package host

import (
	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/peer"
)

// natOptions returns the NAT-traversal options: the relay client, hole
// punching and AutoNAT for every peer; relay and AutoNAT service for a
// public peer; static relays (the bootstrap peers) for a private one.
func natOptions(cfg Config, bootstrap []peer.AddrInfo) []libp2p.Option {
	opts := []libp2p.Option{
		libp2p.EnableRelay(),
		libp2p.EnableHolePunching(),
		libp2p.EnableAutoNATv2(),
	}
	if cfg.PortMap {
		opts = append(opts, libp2p.NATPortMap())
	}
	if cfg.Public {
		opts = append(opts,
			libp2p.ForceReachabilityPublic(),
			libp2p.EnableRelayService(),
			libp2p.EnableNATService(),
		)
		return opts
	}
	if len(bootstrap) > 0 {
		opts = append(opts, libp2p.EnableAutoRelayWithStaticRelays(bootstrap))
	}
	return opts
}
