package peernets

import (
	"net/netip"
	"testing"

	ma "github.com/multiformats/go-multiaddr"
)

func TestNetOf(t *testing.T) {
	tests := []struct {
		addr string
		want string // "" when the address tells nothing
	}{
		{"/ip4/203.0.113.9/tcp/4001", "203.0.113.0/24"},
		{"/ip4/198.51.100.200/udp/4001/quic-v1", "198.51.100.0/24"},
		{"/ip6/2001:db8:aa:bb::1/tcp/4001", "2001:db8:aa::/48"},
		{"/ip6/::ffff:203.0.113.9/tcp/4001", "203.0.113.0/24"},
		{"/ip4/127.0.1.7/tcp/4001", "127.0.1.0/24"},
		{"/ip4/127.0.0.1/tcp/4001", ""},
		{"/ip6/::1/tcp/4001", ""},
		{"/ip4/203.0.113.9/tcp/4001/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN/p2p-circuit", ""},
		{"/dns4/example.com/tcp/4001", ""},
	}
	for _, tt := range tests {
		got, ok := NetOf(ma.StringCast(tt.addr))
		if (tt.want == "") == ok || (ok && got != netip.MustParsePrefix(tt.want)) {
			t.Errorf("NetOf(%s) = %v, %v; want %q", tt.addr, got, ok, tt.want)
		}
	}
}
