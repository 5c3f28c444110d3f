package host

import (
	"context"
	"fmt"

	dht "github.com/libp2p/go-libp2p-kad-dht"
	lphost "github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// DHTPrefix is the protocol prefix of Hivecrawl's own Kademlia DHT, which
// keeps it apart from the public IPFS (Amino) DHT.
const DHTPrefix = "/hivecrawl"

// newDHT builds the network's DHT. Server mode for public peers answers
// queries; the others run in auto mode and serve only once AutoNAT finds
// them reachable. The bootstrap list is set explicitly so the public IPFS
// peers are never contacted.
func newDHT(h lphost.Host, public bool, bootstrap []peer.AddrInfo) (*dht.IpfsDHT, error) {
	mode := dht.ModeAuto
	if public {
		mode = dht.ModeServer
	}
	peers := append([]peer.AddrInfo(nil), bootstrap...)
	d, err := dht.New(h,
		dht.ProtocolPrefix(DHTPrefix),
		dht.Mode(mode),
		dht.BootstrapPeersFunc(func() []peer.AddrInfo { return peers }),
	)
	if err != nil {
		return nil, fmt.Errorf("start dht: %w", err)
	}
	return d, nil
}

// Bootstrap connects to the configured bootstrap peers (those that answer)
// and refreshes the DHT's routing table. It fails only when none of several
// bootstrap peers could be reached.
func (h *Host) Bootstrap(ctx context.Context) error {
	var firstErr error
	ok := 0
	for _, ai := range h.bootstrap {
		if ai.ID == h.ID() {
			continue
		}
		if err := h.Connect(ctx, ai); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("connect bootstrap peer %s: %w", ai.ID, err)
			}
			continue
		}
		ok++
	}
	if ok == 0 && firstErr != nil {
		return firstErr
	}
	if h.dht == nil {
		return nil
	}
	if err := h.dht.Bootstrap(ctx); err != nil {
		return fmt.Errorf("bootstrap dht: %w", err)
	}
	return nil
}

// DHT returns the peer's Kademlia DHT, for peer routing; nil with
// Config.NoDHT.
func (h *Host) DHT() *dht.IpfsDHT { return h.dht }
