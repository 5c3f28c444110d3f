// Package netguard holds the one rule for which addresses Hivecrawl may
// connect to on a web host's behalf: public unicast only. The crawler and the
// overlay's RTT prober both dial web hosts named by outside input, so both
// use this check, at dial time, after DNS resolution and on every redirect.
package netguard

import (
	"fmt"
	"net/netip"
	"syscall"

	"code.dny.dev/ssrf"
)

// Control returns a net.Dialer Control that refuses loopback, private,
// link-local, multicast and unspecified addresses (the IANA special-purpose
// registries), on any port, wrapping the refusal in forbidden so callers
// can branch on their own sentinel error. allowLoopback admits 127.0.0.0/8
// and ::1 only; it exists for local test fixtures.
func Control(allowLoopback bool, forbidden error) func(network, address string, c syscall.RawConn) error {
	g := guardian(allowLoopback)
	return func(network, address string, c syscall.RawConn) error {
		if err := g.Safe(network, address, c); err != nil {
			return fmt.Errorf("%w: %w", forbidden, err)
		}
		return nil
	}
}

// Check applies the same rule to one address before any dial, for input
// that names an IP literally: nil when it may be dialled, else why not.
func Check(addr netip.Addr, allowLoopback bool) error {
	network := "tcp4"
	if !addr.Unmap().Is4() {
		network = "tcp6"
	}
	return guardian(allowLoopback).Safe(network, netip.AddrPortFrom(addr.Unmap(), 80).String(), nil)
}

func guardian(allowLoopback bool) *ssrf.Guardian {
	opts := []ssrf.Option{ssrf.WithAnyPort()}
	if allowLoopback {
		opts = append(opts,
			ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.0/8")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::1/128")))
	}
	return ssrf.New(opts...)
}
