// Package netguard holds the one rule for which addresses Hivecrawl may
// connect to on a web host's behalf: public unicast only. The crawler and the
// overlay's RTT prober both dial web hosts named by outside input, so both
// use this check, at dial time, after DNS resolution and on every redirect.
//
// Two test-only switches widen it: loopback, for fixtures on 127.0.0.1,
// and the documentation ranges, for fixtures in network namespaces a test
// builds (swarm/netlab), where loopback stays refused.
package netguard

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"
)

// Allow is what a test lets through beyond public addresses.
type Allow uint8

const (
	// AllowLoopback admits 127.0.0.0/8 and ::1.
	AllowLoopback Allow = 1 << iota
	// AllowTestNets admits the documentation ranges: 192.0.2.0/24,
	// 198.51.100.0/24 and 203.0.113.0/24 (RFC 5737), 2001:db8::/32
	// (RFC 3849). Nothing on the internet answers there.
	AllowTestNets
)

// Allowing returns the Allow of the two switches.
func Allowing(loopback, testNets bool) Allow {
	var a Allow
	if loopback {
		a |= AllowLoopback
	}
	if testNets {
		a |= AllowTestNets
	}
	return a
}

// Control returns a net.Dialer Control that refuses loopback, private,
// link-local, multicast and unspecified addresses (the IANA special-purpose
// registries), on any port, wrapping the refusal in forbidden so callers
// can branch on their own sentinel error. allow lets the test ranges
// through.
func Control(allow Allow, forbidden error) func(network, address string, c syscall.RawConn) error {
	g := guardian(allow)
	return func(network, address string, c syscall.RawConn) error {
		if err := g.Safe(network, address, c); err != nil {
			return fmt.Errorf("%w: %w", forbidden, err)
		}
		return nil
	}
}

// Check applies the same rule to one address before any dial, for input
// that names an IP literally: nil when it may be dialled, else why not.
func Check(addr netip.Addr, allow Allow) error {
	network := "tcp4"
	if !addr.Unmap().Is4() {
		network = "tcp6"
	}
	return guardian(allow).Safe(network, netip.AddrPortFrom(addr.Unmap(), 80).String(), nil)
}

// MachineName reports whether host names this machine whatever DNS says
// ("localhost" and names under it, RFC 6761 §6.3), in any case, with or
// without a trailing dot: input naming it is refused before any lookup,
// unless allow lets loopback through.
func MachineName(host string, allow Allow) bool {
	if allow&AllowLoopback != 0 {
		return false
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

func guardian(allow Allow) *ssrf.Guardian {
	opts := []ssrf.Option{ssrf.WithAnyPort()}
	var v4, v6 []netip.Prefix
	if allow&AllowLoopback != 0 {
		v4 = append(v4, netip.MustParsePrefix("127.0.0.0/8"))
		v6 = append(v6, netip.MustParsePrefix("::1/128"))
	}
	if allow&AllowTestNets != 0 {
		v4 = append(v4, netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24"))
		v6 = append(v6, netip.MustParsePrefix("2001:db8::/32"))
	}
	if len(v4) > 0 {
		opts = append(opts, ssrf.WithAllowedV4Prefixes(v4...))
	}
	if len(v6) > 0 {
		opts = append(opts, ssrf.WithAllowedV6Prefixes(v6...))
	}
	return ssrf.New(opts...)
}
