package zonecert

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// Book is what one peer knows of zone ownership: for each zone, the newest
// certificate it accepted. It applies the rule peers act on: a certificate
// counts only if it verifies under the manager's key, has not expired,
// and its epoch is the highest seen for its zone and every zone
// overlapping it (ancestors and descendants in the split tree). The map
// gives every change of holder or shape a new, higher epoch, so the newest
// certificate wins whatever order copies arrive in, and an older one
// replayed later is refused.
//
// The zero value is not usable; call NewBook. Not safe for concurrent use.
type Book struct {
	manager crypto.PubKey
	certs   map[can.Path]Cert
	// life is the longest a certificate had left when accepted: the map's
	// TTL, as far as this book has seen it (Forget).
	life time.Duration
}

// NewBook returns an empty book that trusts certificates signed by manager.
func NewBook(manager crypto.PubKey) *Book {
	return &Book{manager: manager, certs: make(map[can.Path]Cert)}
}

// Accept checks c against the rule (ErrForged, ErrExpired, ErrStale) and,
// if it passes, records it, dropping the certificates of overlapping zones
// it supersedes. A certificate of the same zone, holder and epoch with a
// later expiry is a renewal and replaces the one held; one with the same
// epoch and an earlier or equal expiry changes nothing and is accepted.
func (b *Book) Accept(c Cert, now time.Time) error {
	_, err := b.Supersede(c, now)
	return err
}

// Supersede is Accept, and returns the certificates c superseded: those of
// the zones it overlaps that the book held, with older epochs. A peer
// learns from them that their holders' zones changed.
func (b *Book) Supersede(c Cert, now time.Time) ([]Cert, error) {
	if old, ok := b.certs[c.Path]; ok && old.Epoch == c.Epoch && old.Holder == c.Holder &&
		old.Expiry.Equal(c.Expiry) && bytes.Equal(old.Sig, c.Sig) {
		// The very certificate held, verified when it was accepted:
		// peers repeat their certificates in every heartbeat.
		return nil, nil
	}
	if err := c.Verify(b.manager); err != nil {
		return nil, err
	}
	if !now.Before(c.Expiry) {
		return nil, fmt.Errorf("zone %q of %s, epoch %d, expired at %s: %w", c.Path, c.Holder, c.Epoch, c.Expiry.Format(time.RFC3339), ErrExpired)
	}
	var superseded []can.Path
	var gone []Cert
	for p, old := range b.certs {
		if !p.Overlaps(c.Path) {
			continue
		}
		switch {
		case old.Epoch < c.Epoch:
			superseded = append(superseded, p)
		case old.Epoch == c.Epoch && p == c.Path && old.Holder == c.Holder:
			if !c.Expiry.After(old.Expiry) {
				return nil, nil // a copy of a renewal already held
			}
			superseded = append(superseded, p)
		default:
			// An older epoch, or the same epoch for another holder or an
			// overlapping zone, which one map never issues.
			return nil, fmt.Errorf("zone %q of %s, epoch %d, against %q of %s, epoch %d: %w",
				c.Path, c.Holder, c.Epoch, p, old.Holder, old.Epoch, ErrStale)
		}
	}
	for _, p := range superseded {
		if old := b.certs[p]; old.Epoch < c.Epoch {
			gone = append(gone, old)
		}
		delete(b.certs, p)
	}
	b.certs[c.Path] = c
	b.life = max(b.life, c.Expiry.Sub(now))
	return gone, nil
}

// Holder returns the holder of the zone at path by the newest unexpired
// certificate accepted for exactly that zone.
func (b *Book) Holder(path can.Path, now time.Time) (Cert, bool) {
	c, ok := b.certs[path]
	if !ok || !now.Before(c.Expiry) {
		return Cert{}, false
	}
	return c, true
}

// Prune drops the certificates that expired before cutoff and returns how
// many. Call it with now minus the map's TTL, not with now: an expired
// certificate still records the epoch that refuses older copies, and a
// superseded certificate can outlive its successor by up to one TTL (its
// holder renewed it just before it was superseded; an heir's new
// certificate keeps the heir's nearer expiry), so forgetting sooner would
// let a replay of it through.
func (b *Book) Prune(cutoff time.Time) int {
	n := 0
	for p, c := range b.certs {
		if c.Expiry.Before(cutoff) {
			delete(b.certs, p)
			n++
		}
	}
	return n
}

// Forget prunes what expired longer ago than the longest lifetime of a
// certificate the book accepted, the map's TTL as far as it has seen, and
// returns how many it dropped. A peer calls it every round: without it the
// book keeps a certificate for every zone that ever existed near it.
func (b *Book) Forget(now time.Time) int { return b.Prune(now.Add(-b.life)) }

// Certs returns the unexpired certificates held, in path order.
func (b *Book) Certs(now time.Time) []Cert {
	out := make([]Cert, 0, len(b.certs))
	for _, c := range b.certs {
		if now.Before(c.Expiry) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Cert) int { return strings.Compare(string(a.Path), string(b.Path)) })
	return out
}

// Len returns the number of certificates held.
func (b *Book) Len() int { return len(b.certs) }

// Around returns self's place in the map as the book has it at now: the
// certificates self holds, and the zones of every other holder whose
// zones abut one of them (self's neighbours).
func (b *Book) Around(self peer.ID, dim int, now time.Time) (own []Cert, nbrs map[peer.ID][]can.Zone) {
	nbrs = map[peer.ID][]can.Zone{}
	for _, c := range b.Certs(now) {
		if c.Holder == self {
			own = append(own, c)
		} else {
			nbrs[c.Holder] = append(nbrs[c.Holder], c.Path.Zone(dim))
		}
	}
	mine := Zones(own, dim)
	maps.DeleteFunc(nbrs, func(_ peer.ID, zs []can.Zone) bool { return !can.AbutsAny(mine, zs) })
	return own, nbrs
}

// Successors returns, by holder, the unexpired certificates of zones
// overlapping one of old's held by others than self: after self left or
// moved, who holds what was its.
func (b *Book) Successors(old []Cert, self peer.ID, now time.Time) map[peer.ID][]Cert {
	out := map[peer.ID][]Cert{}
	for _, c := range b.Certs(now) {
		if c.Holder != self && slices.ContainsFunc(old, func(o Cert) bool { return o.Path.Overlaps(c.Path) }) {
			out[c.Holder] = append(out[c.Holder], c)
		}
	}
	return out
}

// HeldBy returns the unexpired certificates of holder id.
func (b *Book) HeldBy(id peer.ID, now time.Time) []Cert {
	return slices.DeleteFunc(b.Certs(now), func(c Cert) bool { return c.Holder != id })
}

// Zones returns the zones of certs, in a space of dim dimensions.
func Zones(certs []Cert, dim int) []can.Zone {
	out := make([]can.Zone, len(certs))
	for i, c := range certs {
		out[i] = c.Path.Zone(dim)
	}
	return out
}

// DecodeEach decodes certificates heard from a peer, dropping what does
// not decode: the book refuses what does not verify.
func DecodeEach(raw [][]byte) []Cert {
	out := make([]Cert, 0, len(raw))
	for _, b := range raw {
		if c, err := Decode(b); err == nil {
			out = append(out, c)
		}
	}
	return out
}
