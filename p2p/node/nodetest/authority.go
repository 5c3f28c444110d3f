// Package nodetest runs the manager's map of zones in process, for tests
// of live peers (p2p/node) that need no manager: a can.Map behind a mutex,
// certificates signed with a key of the test's. The manager's own map
// (manager/zones) keeps it in the channel database and answers over the
// entry protocol.
package nodetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// Authority is an in-process map of zones. Safe for concurrent use.
type Authority struct {
	key crypto.PrivKey
	// Alive, when set, answers whether a reported peer still answers;
	// nil takes every reported peer for gone.
	Alive func(peer.ID) bool
	// Addrs, when set, returns a holder's addresses for grants.
	Addrs func(peer.ID) peer.AddrInfo

	mu  sync.Mutex // guards m
	m   *can.Map
	ops map[zonecert.Op]int
}

// New returns an empty map of dim dimensions whose certificates last ttl
// and are signed with key.
func New(key crypto.PrivKey, dim int, ttl time.Duration) *Authority {
	return &Authority{key: key, m: can.NewMap(dim, ttl), ops: map[zonecert.Op]int{}}
}

// For returns the Authority as peer id reaches it.
func (a *Authority) For(id peer.ID) zonecert.Authority { return asker{a, id} }

type asker struct {
	a  *Authority
	id peer.ID
}

func (s asker) Zones(ctx context.Context, req zonecert.Request) (zonecert.Grant, error) {
	return s.a.Answer(s.id, req, time.Now())
}

// Answer serves req from peer id at now, as the manager would.
func (a *Authority) Answer(id peer.ID, req zonecert.Request, now time.Time) (zonecert.Grant, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ops[req.Op]++
	pid := can.PeerID(id.String())
	a.m.Expire(now)
	var (
		changed []can.Leaf
		err     error
	)
	switch req.Op {
	case zonecert.OpJoin:
		if a.m.Has(pid) {
			changed, err = a.m.Move(pid, req.Point, now)
		} else {
			changed, err = a.m.Join(pid, req.Point, now)
		}
	case zonecert.OpMove:
		changed, err = a.m.Move(pid, req.Point, now)
	case zonecert.OpRenew:
		changed, err = a.m.Renew(pid, now)
		if errors.Is(err, can.ErrUnknownPeer) || errors.Is(err, can.ErrExpired) {
			err = fmt.Errorf("%w: %v", zonecert.ErrRejoin, err)
		}
	case zonecert.OpLeave:
		changed, err = a.m.Leave(pid, now)
	case zonecert.OpReport:
		sid := can.PeerID(req.Suspect.String())
		switch {
		case !a.m.Has(sid):
			return zonecert.Grant{}, nil // gone already
		case !abuts(a.m, pid, sid):
			return zonecert.Grant{}, fmt.Errorf("report of %s: not a neighbour of the reporter", req.Suspect)
		case a.Alive != nil && a.Alive(req.Suspect):
			return zonecert.Grant{}, fmt.Errorf("report of %s: it answers", req.Suspect)
		}
		changed, err = a.m.Leave(sid, now)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if errors.Is(err, can.ErrTooDeep) {
		err = fmt.Errorf("%w: %v", zonecert.ErrTooDeep, err)
	}
	if err != nil {
		return zonecert.Grant{}, err
	}
	return a.grantLocked(pid, changed)
}

// grantLocked returns the asker's leaves, its neighbours' and the changed
// ones, signed.
func (a *Authority) grantLocked(pid can.PeerID, changed []can.Leaf) (zonecert.Grant, error) {
	var g zonecert.Grant
	seen := map[can.Path]bool{}
	holders := map[peer.ID]bool{}
	add := func(l can.Leaf) error {
		if seen[l.Path] {
			return nil
		}
		seen[l.Path] = true
		c, err := zonecert.Issue(l, a.key)
		if err != nil {
			return err
		}
		g.Certs = append(g.Certs, c)
		holders[c.Holder] = true
		return nil
	}
	for _, l := range a.m.Held(pid) {
		if err := add(l); err != nil {
			return zonecert.Grant{}, err
		}
	}
	for _, nb := range a.m.Neighbours(pid) {
		for _, l := range a.m.Held(nb) {
			if err := add(l); err != nil {
				return zonecert.Grant{}, err
			}
		}
	}
	for _, l := range changed {
		if cur, err := a.m.Certify(l.Path); err == nil {
			if err := add(cur); err != nil {
				return zonecert.Grant{}, err
			}
		}
	}
	if a.Addrs != nil {
		for id := range holders {
			g.Peers = append(g.Peers, a.Addrs(id))
		}
	}
	return g, nil
}

// abuts reports whether holders x and y hold abutting zones.
func abuts(m *can.Map, x, y can.PeerID) bool {
	for _, nb := range m.Neighbours(x) {
		if nb == y {
			return true
		}
	}
	return false
}

// Expire removes the holders whose certificates expired by now.
func (a *Authority) Expire(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.m.Expire(now)
}

// Check reports whether the map tiles the space.
func (a *Authority) Check() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Check()
}

// Leaves returns the map's leaves.
func (a *Authority) Leaves() []can.Leaf {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Leaves()
}

// Ops returns how many requests of op were served.
func (a *Authority) Ops(op zonecert.Op) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ops[op]
}
