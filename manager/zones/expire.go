package zones

import (
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Expire removes every holder whose certificates expired, wherever it
// renewed, and hands its zones to its heirs (can.Map.Expire); the heirs
// hear of them at their next renewal. It returns the holders removed.
// The manager runs it every half renewal period. It first reads every
// renewal row outside any write (so it does not collide with renewals
// under way), and writes only when someone expired.
func (a *Authority) Expire() ([]peer.ID, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.opts.Now()
	for id, at := range a.checks {
		if now.Sub(at) >= a.opts.CheckEvery {
			delete(a.checks, id)
		}
	}
	if err := a.store.View(func(tx kv.Tx) error { return a.readRenewals(tx.Bucket(Bucket)) }); err != nil {
		return nil, fmt.Errorf("expire zones: %w", err)
	}
	if len(a.expired(now)) == 0 {
		return nil, nil
	}
	var gone []can.PeerID
	_, err := a.shape(func(b kv.Bucket, m *can.Map, now time.Time) ([]can.Leaf, []can.PeerID, error) {
		// A renewal granted since the rows were read counts.
		for _, id := range a.expired(now) {
			e, ok, err := readRenewal(b, id)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				m.Extend(id, e)
			}
		}
		if gone = a.expired(now); len(gone) == 0 {
			return nil, nil, errNoChange
		}
		return m.Expire(now), gone, nil
	})
	if err != nil {
		return nil, fmt.Errorf("expire zones: %w", err)
	}
	a.stats.Expired += len(gone)
	out := make([]peer.ID, 0, len(gone))
	for _, id := range gone {
		if p, err := peer.Decode(string(id)); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// expired lists the holders of a.m whose expiry is not after now.
func (a *Authority) expired(now time.Time) []can.PeerID {
	var out []can.PeerID
	for _, id := range a.m.Holders() {
		if e, _ := a.m.Expiry(id); !now.Before(e) {
			out = append(out, id)
		}
	}
	return out
}
