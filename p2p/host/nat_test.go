package host

import (
	"testing"

	ma "github.com/multiformats/go-multiaddr"
)

// TestBehindNAT: a connection's local end is behind a NAT when its
// address is no public one; a QUIC dial from a socket bound to 0.0.0.0
// names none, and then the host's own addresses decide. A public peer
// in the NAT lab, whose machine shares its subnet with other public
// addresses, dials its neighbours' QUIC addresses from such a socket:
// judged by the local end alone it took the link for a hole-punched one
// (TestNAT, "client-02 (public) and its neighbour client-00 (public) are
// linked "hole-punched"").
func TestBehindNAT(t *testing.T) {
	public := []ma.Multiaddr{ma.StringCast("/ip4/93.184.216.34/udp/4901/quic-v1"), ma.StringCast("/ip4/127.0.0.1/udp/4901/quic-v1")}
	home := []ma.Multiaddr{ma.StringCast("/ip4/192.168.1.20/udp/4901/quic-v1"), ma.StringCast("/ip4/127.0.0.1/udp/4901/quic-v1")}
	for _, tc := range []struct {
		local string
		own   []ma.Multiaddr
		want  bool
		asks  bool // for the host's addresses
	}{
		{"/ip4/93.184.216.34/udp/4901/quic-v1", public, false, false},
		{"/ip4/192.168.1.20/udp/4901/quic-v1", home, true, false},
		{"/ip4/192.168.1.20/tcp/4901", public, true, false}, // the address it used decides
		{"/ip4/0.0.0.0/udp/57954/quic-v1", public, false, true},
		{"/ip4/0.0.0.0/udp/57954/quic-v1", home, true, true},
		{"/ip4/0.0.0.0/udp/57954/quic-v1", nil, true, true},
		{"/ip6/::/udp/57954/quic-v1", []ma.Multiaddr{ma.StringCast("/ip6/2606:4700::1/udp/4901/quic-v1")}, false, true},
	} {
		asked := false
		got := behindNAT(ma.StringCast(tc.local), func() []ma.Multiaddr { asked = true; return tc.own })
		if got != tc.want {
			t.Errorf("behindNAT(%s, %v) = %v, want %v", tc.local, tc.own, got, tc.want)
		}
		if asked != tc.asks {
			t.Errorf("behindNAT(%s) asked for the host's addresses: %v, want %v", tc.local, asked, tc.asks)
		}
	}
}
