package wire

import (
	"context"

	"github.com/libp2p/go-libp2p/core/network"
	ma "github.com/multiformats/go-multiaddr"
)

// AllowRelayed lets a stream opened with ctx run over a relayed (limited)
// connection when that is all there is to the peer: every overlay
// protocol works between peers behind NATs that hole punching cannot
// cross. Its messages are small next to a relay's limits
// (p2p/host.VolunteerRelay); where a direct connection exists, or hole
// punching makes one, libp2p prefers it.
func AllowRelayed(ctx context.Context) context.Context {
	return network.WithAllowLimitedConn(ctx, "hivecrawl overlay")
}

// Relayed reports whether c goes through a relay.
func Relayed(c network.Conn) bool {
	if c.Stat().Limited {
		return true
	}
	_, err := c.RemoteMultiaddr().ValueForProtocol(ma.P_CIRCUIT)
	return err == nil
}
