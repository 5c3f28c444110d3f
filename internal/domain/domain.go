// Package domain names the registrable domain of a web host (its
// "eTLD+1" under the public suffix list), the unit the manager keeps
// per-domain politeness for: www.example.co.uk and shop.example.co.uk
// are one site's, example.co.uk's.
//
// Caveats: the list is the copy compiled into golang.org/x/net/publicsuffix
// and changes only with that module. A host that is an IP address, a
// single label (localhost) or a public suffix itself has no registrable
// domain; Registrable then names the host itself, so each such host is a
// domain of its own.
package domain

import (
	"net"
	"net/netip"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Registrable returns the registrable domain of host (host or host:port,
// any case), lower case and without the port: "www.example.co.uk:8080"
// gives "example.co.uk". A host without one (an IP address, localhost, a
// public suffix) gives the host itself, without its port.
func Registrable(host string) string {
	name := Hostname(host)
	if name == "" {
		return ""
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return name
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(name)
	if err != nil {
		return name
	}
	return d
}

// Hostname returns host without its port and brackets, lower case and
// without a trailing dot.
func Hostname(host string) string {
	host = strings.ToLower(strings.TrimSpace(host))
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimPrefix(strings.TrimSuffix(host, "]"), "[")
	return strings.TrimSuffix(host, ".")
}

// IsRegistrable reports whether host (host or host:port, any case) is a
// registrable domain itself: example.co.uk and alice.github.io are,
// www.example.co.uk, co.uk, localhost and IP addresses are not.
func IsRegistrable(host string) bool {
	name := Hostname(host)
	if _, err := netip.ParseAddr(name); err != nil && name != "" {
		d, err := publicsuffix.EffectiveTLDPlusOne(name)
		return err == nil && d == name
	}
	return false
}
