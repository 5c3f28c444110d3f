package host

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	dht "github.com/libp2p/go-libp2p-kad-dht"
	lphost "github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
)

// DHTPrefix is the protocol prefix of Hivecrawl's own Kademlia DHT, which
// keeps it apart from the public IPFS (Amino) DHT.
const DHTPrefix = "/hivecrawl"

// newDHT builds the network's DHT. Server mode for public peers answers
// queries; the others run in auto mode and serve only once AutoNAT finds
// them reachable. The bootstrap peers are set explicitly (bootstrap
// returns them: the profile's, then the peers remembered from earlier
// runs) so the public IPFS peers are never contacted.
func newDHT(h lphost.Host, public bool, bootstrap func() []peer.AddrInfo) (*dht.IpfsDHT, error) {
	mode := dht.ModeAuto
	if public {
		mode = dht.ModeServer
	}
	d, err := dht.New(h,
		dht.ProtocolPrefix(DHTPrefix),
		dht.Mode(mode),
		dht.BootstrapPeersFunc(bootstrap),
	)
	if err != nil {
		return nil, fmt.Errorf("start dht: %w", err)
	}
	return d, nil
}

// AddKnown adds peers remembered from earlier runs (a PeerBook's):
// their addresses go to the peerstore, and Bootstrap and the DHT try
// them after the configured bootstrap peers.
func (h *Host) AddKnown(ais []peer.AddrInfo) {
	for _, ai := range ais {
		h.Peerstore().AddAddrs(ai.ID, ai.Addrs, peerstore.AddressTTL)
	}
	h.knownMu.Lock()
	defer h.knownMu.Unlock()
	h.known = append(h.known, ais...)
}

// bootstrapPeers returns the configured bootstrap peers, then the known
// ones.
func (h *Host) bootstrapPeers() []peer.AddrInfo {
	h.knownMu.Lock()
	defer h.knownMu.Unlock()
	return append(slices.Clone(h.bootstrap), h.known...)
}

// Bootstrap connects to the configured bootstrap peers and the known
// ones (those that answer) and refreshes the DHT's routing table. It
// fails only when none of them could be reached.
func (h *Host) Bootstrap(ctx context.Context) error {
	peers := slices.DeleteFunc(h.bootstrapPeers(), func(ai peer.AddrInfo) bool { return ai.ID == h.ID() })
	errs := make([]error, len(peers))
	var wg sync.WaitGroup
	for i, ai := range peers {
		wg.Go(func() {
			// A remembered peer may be long gone: it must not hold up
			// the others.
			cctx, cancel := context.WithTimeout(ctx, connectTimeout)
			defer cancel()
			// Callers pace these dials themselves; the swarm's backoff,
			// grown over a manager's absence to minutes, would refuse
			// the dial long after it is back.
			if sw, ok := h.Network().(*swarm.Swarm); ok {
				sw.Backoff().Clear(ai.ID)
			}
			if err := h.Connect(cctx, ai); err != nil {
				errs[i] = fmt.Errorf("connect bootstrap peer %s: %w", ai.ID, err)
			}
		})
	}
	wg.Wait()
	if len(peers) > 0 && !slices.Contains(errs, nil) {
		return errs[0]
	}
	if h.dht == nil {
		return nil
	}
	if err := h.dht.Bootstrap(ctx); err != nil {
		return fmt.Errorf("bootstrap dht: %w", err)
	}
	return nil
}

// connectTimeout bounds each of Bootstrap's connection attempts.
const connectTimeout = 10 * time.Second

// DHT returns the peer's Kademlia DHT, for peer routing; nil with
// Config.NoDHT.
func (h *Host) DHT() *dht.IpfsDHT { return h.dht }
