// Package peernets remembers the networks peers connect from, so that
// a spot-check goes to a checker a cheater cannot be
// (docs/developer/validation.md, "Who checks"). Anyone can run many
// volunteers, and a cheater's second identity would happily confirm its
// first one's forgery. Identities are free; networks are not: a
// spot-check never goes to, and is never claimed by, a peer linked to the
// result's crawler or an earlier checker of it, that is, one the manager
// saw connect from the same network: the same /24 for IPv4, the same /48
// for IPv6 (a home, an office, a small cloud subnet), or, where the
// operator's AS table (ASTable) knows it, the same autonomous system.
// The manager asks Book.Linked both where it sends a check and when a
// peer claims one.
package peernets

import (
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

// maxNets bounds the peers whose networks are remembered; beyond it, the
// longest unseen are forgotten.
const maxNets = 1 << 16

// netsPerPeer bounds the networks remembered per peer (an IPv4 and an
// IPv6 address, a move or two).
const netsPerPeer = 4

// Book remembers the networks each peer connected from.
type Book struct {
	as   *ASTable // nil: no AS is known
	mu   sync.Mutex
	nets map[peer.ID]peerNets // guarded by mu
}

type peerNets struct {
	nets []netip.Prefix
	asns []uint32 // the autonomous systems of nets, where known
	seen time.Time
}

// New returns an empty book; as, when not nil, names the autonomous
// systems of addresses.
func New(as *ASTable) *Book { return &Book{as: as, nets: make(map[peer.ID]peerNets)} }

// NetOf returns the network of a connection's remote address: its /24
// for IPv4, its /48 for IPv6. ok is false for a relayed connection (the
// address is the relay's), an address that is not IP, and the loopback
// network 127.0.0.0/24 and ::1, where every test's volunteers run and a
// member on the manager's own machine: they tell nothing.
func NetOf(a ma.Multiaddr) (netip.Prefix, bool) {
	if _, err := a.ValueForProtocol(ma.P_CIRCUIT); err == nil {
		return netip.Prefix{}, false
	}
	ip, err := manet.ToIP(a)
	if err != nil {
		return netip.Prefix{}, false
	}
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return netip.Prefix{}, false
	}
	addr = addr.Unmap()
	bits := 48
	if addr.Is4() {
		bits = 24
	}
	p, err := addr.Prefix(bits)
	if err != nil || addr == netip.IPv6Loopback() || p == netip.MustParsePrefix("127.0.0.0/24") {
		return netip.Prefix{}, false
	}
	return p, true
}

// Saw records that id connected from remote at now.
func (b *Book) Saw(id peer.ID, remote ma.Multiaddr, now time.Time) {
	n, ok := NetOf(remote)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	pn := b.nets[id]
	if !slices.Contains(pn.nets, n) {
		pn.nets = append(pn.nets, n)
		if len(pn.nets) > netsPerPeer {
			pn.nets = pn.nets[1:]
		}
	}
	if as, ok := b.as.Lookup(n.Addr()); ok && !slices.Contains(pn.asns, as) {
		pn.asns = append(pn.asns, as)
		if len(pn.asns) > netsPerPeer {
			pn.asns = pn.asns[1:]
		}
	}
	pn.seen = now
	b.nets[id] = pn
	if len(b.nets) > maxNets {
		b.forgetOldestLocked()
	}
}

// forgetOldestLocked forgets the eighth of the peers seen longest ago.
func (b *Book) forgetOldestLocked() {
	seen := make([]time.Time, 0, len(b.nets))
	for _, pn := range b.nets {
		seen = append(seen, pn.seen)
	}
	slices.SortFunc(seen, func(x, y time.Time) int { return x.Compare(y) })
	cut := seen[len(seen)/8]
	for id, pn := range b.nets {
		if pn.seen.Before(cut) {
			delete(b.nets, id)
		}
	}
}

// Linked reports whether peer id connected from a network, or an
// autonomous system, that any peer of others connected from, and names
// that peer.
func (b *Book) Linked(id string, others []string) (string, bool) {
	p, err := peer.Decode(id)
	if err != nil {
		return "", false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	mine := b.nets[p]
	if len(mine.nets) == 0 {
		return "", false
	}
	for _, o := range others {
		op, err := peer.Decode(o)
		if err != nil || op == p {
			continue
		}
		theirs := b.nets[op]
		if slices.ContainsFunc(theirs.nets, func(n netip.Prefix) bool { return slices.Contains(mine.nets, n) }) ||
			slices.ContainsFunc(theirs.asns, func(as uint32) bool { return slices.Contains(mine.asns, as) }) {
			return o, true
		}
	}
	return "", false
}
