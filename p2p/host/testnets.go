package host

import (
	"net"
	"slices"

	manet "github.com/multiformats/go-multiaddr/net"
)

// documentation are the IPv4 documentation ranges (RFC 5737).
var documentation = []string{"192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"}

// TestNetsPublic makes libp2p treat the IPv4 documentation ranges as
// public internet addresses, as the NAT lab (swarm/netlab) uses them:
// AutoNAT, hole punching and libp2p's address filters then work on them
// as on the internet. The benchmarking range, the lab's home LANs, stays
// unroutable. Test and demo only (--allow-test-nets); call it before any
// host starts.
func TestNetsPublic() {
	manet.Unroutable4 = slices.DeleteFunc(slices.Clone(manet.Unroutable4), func(n *net.IPNet) bool {
		return slices.Contains(documentation, n.String())
	})
}
