package host

import (
	"fmt"
	"log/slog"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// DefaultMaxConns is the overlay connection cap used when Config.MaxConns is 0.
const DefaultMaxConns = 128

// DefaultListenAddrs are used when Config.ListenAddrs is empty: TCP and QUIC
// on every interface, on the port Hivecrawl registers for itself.
var DefaultListenAddrs = []string{
	"/ip4/0.0.0.0/tcp/4901",
	"/ip4/0.0.0.0/udp/4901/quic-v1",
	"/ip6/::/tcp/4901",
	"/ip6/::/udp/4901/quic-v1",
}

// Config configures a Host. The zero value (plus a KeyFile) is a private
// volunteer peer with default limits.
type Config struct {
	// ListenAddrs are multiaddrs to listen on; empty means DefaultListenAddrs.
	// Tests use "/ip4/127.0.0.1/tcp/0" and "/ip4/127.0.0.1/udp/0/quic-v1".
	ListenAddrs []string `json:"listen_addrs,omitempty"`
	// KeyFile holds the peer's private key. It is created (mode 0600) when
	// missing, so the peer ID survives restarts. Empty means an ephemeral
	// key, for tests.
	KeyFile string `json:"key_file,omitempty"`
	// MaxConns is the contributor's cap on overlay connections; the resource
	// manager and connection manager limits derive from it (see Limits).
	// 0 means DefaultMaxConns.
	MaxConns int `json:"max_conns,omitempty"`
	// Public marks a peer reachable from the internet: it skips AutoNAT's
	// reachability probing, offers relay service and AutoNAT service, and runs
	// the DHT in server mode. Bootstrap peers and test peers set it.
	Public bool `json:"public,omitempty"`
	// Bootstrap lists the network's own bootstrap peers as multiaddrs ending
	// in /p2p/<peer ID>. Private peers also use them as static relays.
	Bootstrap []string `json:"bootstrap,omitempty"`
	// NoDHT leaves the DHT out, for tests and tools that need no discovery
	// (Bootstrap then only connects, Advertise and FindPeers fail).
	NoDHT bool `json:"-"`
	// PortMap enables UPnP/NAT-PMP port mapping on the local router.
	PortMap bool `json:"port_map,omitempty"`
	// Logger receives the host's log records; nil means slog.Default().
	Logger *slog.Logger `json:"-"`
}

func (c Config) listenAddrs() []string {
	if len(c.ListenAddrs) == 0 {
		return DefaultListenAddrs
	}
	return c.ListenAddrs
}

func (c Config) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.Default()
	}
	return c.Logger
}

// ParseBootstrap turns multiaddrs ending in /p2p/<id> into peer infos, merging
// several addresses of the same peer.
func ParseBootstrap(addrs []string) ([]peer.AddrInfo, error) {
	mas := make([]ma.Multiaddr, 0, len(addrs))
	for _, s := range addrs {
		m, err := ma.NewMultiaddr(s)
		if err != nil {
			return nil, fmt.Errorf("parse bootstrap address %q: %w", s, err)
		}
		mas = append(mas, m)
	}
	infos, err := peer.AddrInfosFromP2pAddrs(mas...)
	if err != nil {
		return nil, fmt.Errorf("parse bootstrap addresses: %w", err)
	}
	return infos, nil
}
