// Package members is the manager's side of the entry protocol
// (proto/entry): it serves zone operations from the manager's zone map
// (manager/zones, set with Registry.SetZones), the one authority of who
// holds which zone, and keeps the registry of the overlay's members as
// the operations leave them: the zones the map certifies to each, beside
// the coordinate and capacity it reports. A request without an operation
// is refused.
package members

import (
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/manager/zones"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// Timings of the registry.
const (
	// memberFor is how long a membership lasts without renewal.
	memberFor = 3 * entry.RenewEvery
	// identifyWait bounds how long a request waits for identify.
	identifyWait = 2 * time.Second
	// opWait bounds an operation, so that its answer is sent within
	// entry.Timeout: a report's liveness check takes up to 5 s.
	opWait = entry.Timeout - identifyWait - time.Second
)

// Member is a member peer as it last reported itself.
type Member struct {
	ID         peer.ID
	Zones      []entry.Box
	Coord      []float64
	CoordError float64
	Samples    int
	Capacity   float64
	Seen       time.Time
	// Addrs are where the member was reached, for another manager
	// sharing the database (Local, Merge).
	Addrs []string `json:",omitempty"`
	// Remote marks a member that renews with another manager.
	Remote bool `json:"-"`
}

// RegistryHost is what the manager's side needs from a libp2p host: a
// Host, and a wait for libp2p's identify exchange on a connection (which
// brings the peer's announced addresses).
type RegistryHost interface {
	entry.Host
	IdentifyWait(network.Conn) <-chan struct{}
}

// Registry is the manager's side: it serves the operations and
// remembers the members. Safe for concurrent use.
type Registry struct {
	h   RegistryHost
	now func() time.Time

	mu      sync.Mutex // guards the fields below
	members map[peer.ID]*Member
	bounds  []byte // the signed bounds every answer carries
	// admit, when set, returns why a peer stating a version may not take
	// part ("" when it may).
	admit func(version string) string
	// zones serves operations (Request.Op); nil refuses them.
	zones *zones.Authority
}

// NewRegistry returns a Registry for h's peers; now is the clock.
func NewRegistry(h RegistryHost, now func() time.Time) *Registry {
	return &Registry{h: h, now: now, members: map[peer.ID]*Member{}}
}

// SetBounds makes every answer carry b, the manager-signed record of the
// CAN space's bounds.
func (r *Registry) SetBounds(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bounds = b
}

// SetAdmit makes the registry ask admit about every asker's stated
// version: an asker it gives a reason is answered with that reason
// (Answer.Outdated), no certificate, and no membership.
func (r *Registry) SetAdmit(admit func(version string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.admit = admit
}

// Members returns the peers whose membership is current and who are
// connected.
func (r *Registry) Members() []peer.ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.liveLocked(r.now())
}

// MemberInfos returns the current, connected members as they last
// reported themselves, in no particular order.
func (r *Registry) MemberInfos() []Member {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := r.liveLocked(r.now())
	out := make([]Member, len(ids))
	for i, id := range ids {
		out[i] = *r.members[id]
	}
	return out
}

// Reported returns every member whose membership has not lapsed, as it
// last reported itself, whether or not it is connected right now: a
// connection the manager or the member closed for a while does not end a
// membership.
func (r *Registry) Reported() []Member {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked(r.now())
	out := make([]Member, 0, len(r.members))
	for _, m := range r.members {
		out = append(out, *m)
	}
	return out
}

// pruneLocked forgets the members whose membership lapsed at now.
func (r *Registry) pruneLocked(now time.Time) {
	for id, m := range r.members {
		if now.Sub(m.Seen) > memberFor {
			delete(r.members, id)
		}
	}
}

// liveLocked returns the current members: those connected to this
// manager, and those another manager sharing the database heard from
// (Merge).
func (r *Registry) liveLocked(now time.Time) []peer.ID {
	r.pruneLocked(now)
	var out []peer.ID
	for id, m := range r.members {
		if m.Remote || r.h.Network().Connectedness(id) == network.Connected {
			out = append(out, id)
		}
	}
	return out
}

// Local returns the members that renewed with this manager since since,
// with the addresses they listen on: what another manager sharing the
// database learns from it. A member whose addresses this manager has not
// learnt yet (libp2p's identify exchange follows the connection) is left
// for a later call: its next renewal is after since.
func (r *Registry) Local(since time.Time) []Member {
	r.mu.Lock()
	defer r.mu.Unlock()
	ps := r.h.Network().Peerstore()
	var out []Member
	for id, m := range r.members {
		if m.Remote || !m.Seen.After(since) {
			continue
		}
		c := *m
		c.Addrs = nil
		for _, a := range ps.Addrs(id) {
			c.Addrs = append(c.Addrs, a.String())
		}
		if len(c.Addrs) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Merge adds the members other managers sharing the database heard from,
// unless one renewed with this manager more recently; their addresses
// go to the peerstore for as long as a membership lasts.
func (r *Registry) Merge(ms []Member) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ps := r.h.Network().Peerstore()
	for _, m := range ms {
		if have, ok := r.members[m.ID]; ok && !have.Seen.Before(m.Seen) {
			continue
		}
		var addrs []ma.Multiaddr
		for _, s := range m.Addrs {
			if a, err := ma.NewMultiaddr(s); err == nil {
				addrs = append(addrs, a)
			}
		}
		ps.AddAddrs(m.ID, addrs, memberFor)
		m.Remote = true
		r.members[m.ID] = &m
	}
}
