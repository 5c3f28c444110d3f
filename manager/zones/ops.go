package zones

import (
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Join adds id at point p: the zone holding p is split and id takes the
// half with p. A peer that holds zones already is moved to p instead (a
// client restarted and joining again). Refused with ErrBadPoint or
// ErrTooDeep.
func (a *Authority) Join(id peer.ID, p can.Point) (Grant, error) {
	return a.place("join", id, p, true)
}

// Move hands id's zones to their heirs and joins it again at p, in one
// step (can.Map.Move). Refused with ErrJoinAgain for a peer that holds no
// zone, and as Join is.
func (a *Authority) Move(id peer.ID, p can.Point) (Grant, error) {
	return a.place("move", id, p, false)
}

func (a *Authority) place(what string, id peer.ID, p can.Point, join bool) (Grant, error) {
	if err := a.checkPoint(p); err != nil {
		return Grant{}, fmt.Errorf("%s %s: %w", what, id, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	cid := pid(id)
	changed, err := a.shape(func(_ kv.Bucket, m *can.Map, now time.Time) ([]can.Leaf, []can.PeerID, error) {
		var (
			ls  []can.Leaf
			err error
		)
		switch {
		case m.Has(cid):
			ls, err = m.Move(cid, p, now)
		case join:
			ls, err = m.Join(cid, p, now)
		default:
			err = ErrJoinAgain
		}
		if errors.Is(err, can.ErrTooDeep) {
			err = fmt.Errorf("%w: %w", ErrTooDeep, err)
		}
		return ls, nil, err
	})
	if err != nil {
		return Grant{}, fmt.Errorf("%s %s: %w", what, id, err)
	}
	return a.grant(cid, changed)
}

// Leave hands id's zones to their heirs; the grant carries the heirs'
// changed zones. Leaving again, or without having joined, changes nothing
// and is no error.
func (a *Authority) Leave(id peer.ID) (Grant, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	changed, err := a.remove(pid(id))
	if err != nil {
		return Grant{}, fmt.Errorf("leave %s: %w", id, err)
	}
	return a.grant(pid(id), changed)
}

// remove takes id out of the map, if it is in it.
func (a *Authority) remove(id can.PeerID) ([]can.Leaf, error) {
	return a.shape(func(_ kv.Bucket, m *can.Map, now time.Time) ([]can.Leaf, []can.PeerID, error) {
		if !m.Has(id) {
			return nil, nil, errNoChange
		}
		ls, err := m.Leave(id, now)
		return ls, []can.PeerID{id}, err
	})
}

// Renew extends id's certificates to now plus the TTL, keeping their
// epochs, and grants them with its neighbours'. It writes only id's
// renewal row. A peer that holds no zone, or whose certificates expired,
// is refused with ErrJoinAgain.
func (a *Authority) Renew(id peer.ID) (Grant, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.opts.Now()
	cid := pid(id)
	var next time.Time
	err := a.store.Update(func(tx kv.Tx) error {
		b := tx.Bucket(Bucket)
		if err := a.current(b); err != nil {
			return err
		}
		cur, ok := a.m.Expiry(cid)
		if !ok {
			return ErrJoinAgain
		}
		if e, ok, err := readRenewal(b, cid); err != nil {
			return err
		} else if ok && e.After(cur) {
			cur = e
		}
		if !now.Before(cur) {
			return fmt.Errorf("certificates expired at %s: %w", cur.UTC().Format(time.RFC3339Nano), ErrJoinAgain)
		}
		next = now.Add(a.m.TTL())
		if !next.After(cur) {
			next = cur // a clock stepped back: never shorten
			return nil
		}
		return writeRenewal(b, cid, next)
	})
	if err != nil {
		return Grant{}, fmt.Errorf("renew %s: %w", id, err)
	}
	a.m.Extend(cid, next)
	a.known[cid] = next
	a.stats.Renewals++
	return a.grant(cid, nil)
}
