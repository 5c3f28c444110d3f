package zones

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
)

// Defaults of zero Options fields.
const (
	// DefaultTTL is how long a certificate lasts: three of the entry
	// protocol's renewals (proto/entry.RenewEvery), so a member that
	// misses two keeps its zones.
	DefaultTTL = 30 * time.Second
	// DefaultCheckEvery is how often at most the manager checks one
	// suspect's liveness: once per renewal period.
	DefaultCheckEvery = 10 * time.Second
)

// Options configure an Authority. Zero fields take the defaults.
type Options struct {
	// Dim is the CAN space's dimension; 0 = can.DefaultDim.
	Dim int
	// TTL is how long a certificate lasts from its holder's last join,
	// move or renewal; 0 = DefaultTTL. A map already stored keeps its own.
	TTL time.Duration
	// CheckEvery is how often at most one suspect's liveness is checked
	// (Report); 0 = DefaultCheckEvery.
	CheckEvery time.Duration
	// Live checks that a peer answers the manager: nil error when it
	// does. The manager pings it over libp2p within a few seconds. Nil
	// takes every suspect to answer: no report evicts anyone.
	Live func(ctx context.Context, id peer.ID) error
	// Now is the clock; nil = time.Now.
	Now func() time.Time
	// SignCache bounds the signed certificates kept; 0 = DefaultSignCache.
	SignCache int
}

func (o Options) withDefaults() Options {
	if o.Dim <= 0 {
		o.Dim = can.DefaultDim
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.CheckEvery <= 0 {
		o.CheckEvery = DefaultCheckEvery
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SignCache <= 0 {
		o.SignCache = DefaultSignCache
	}
	return o
}

// Authority is the manager's certified zone map. Every method that
// changes it takes the peer ID the request came from (the libp2p stream's
// remote peer): a peer acts only in its own name. Safe for concurrent use.
type Authority struct {
	store kv.Store
	opts  Options

	mu sync.Mutex // guards the fields below; held through each operation and its transaction
	// m is the map as stored at version, with the renewal rows known
	// folded in.
	m       *can.Map
	version uint64
	// stale marks m changed by a transaction that did not commit: it
	// is read again from the store.
	stale bool
	// known are the renewal rows last read or written, by holder.
	known map[can.PeerID]time.Time
	// checks are when each suspect's liveness was last checked.
	checks map[peer.ID]time.Time
	sign   *signer
	stats  Stats
}

// Stats count what an Authority did since it was made.
type Stats struct {
	// Loads counts decodings of the stored map: the first, and one after
	// each change another manager (or a failed transaction) made.
	Loads int
	// Writes counts writes of the map, MapBytes the size of the last.
	Writes   int
	MapBytes int
	// Renewals counts renewals granted.
	Renewals int
	// Signed counts certificates signed, Reused those handed out again
	// from memory.
	Signed, Reused int
	// Evicted counts holders removed on a neighbour's confirmed report,
	// Expired those removed by Expire.
	Evicted, Expired int
}

// New returns the authority over the map kept in store's Bucket, signing
// with key, the manager's libp2p key. It reads the stored map, if any,
// and goes on from it.
func New(store kv.Store, key crypto.PrivKey, opts Options) (*Authority, error) {
	if key == nil {
		return nil, errors.New("new zone authority: no signing key")
	}
	opts = opts.withDefaults()
	a := &Authority{store: store, opts: opts, known: map[can.PeerID]time.Time{}, checks: map[peer.ID]time.Time{},
		sign: newSigner(key, opts.SignCache)}
	err := store.View(func(tx kv.Tx) error { return a.readRenewals(tx.Bucket(Bucket)) })
	if err != nil {
		return nil, fmt.Errorf("new zone authority: %w", err)
	}
	return a, nil
}

// Grant is what a peer is told after an operation: certificates it
// checks and keeps (zonecert.Book).
type Grant struct {
	// Held are the certificates of the asker's zones after the operation,
	// in path order; none after it left.
	Held []zonecert.Cert
	// Others are the certificates of its neighbours' zones and of every
	// other zone the operation changed (the old holder's half after a
	// split, the heirs' zones after a leave).
	Others []zonecert.Cert
	// raw are the encodings of Held then Others.
	raw [][]byte
}

// Encoded returns the certificates' encodings, Held first, then Others.
// The slices are shared: do not modify them.
func (g Grant) Encoded() [][]byte { return g.raw }

// pid is the map's name of a peer.
func pid(id peer.ID) can.PeerID { return can.PeerID(id.String()) }

// checkPoint refuses a point outside the space.
func (a *Authority) checkPoint(p can.Point) error {
	if len(p) != a.opts.Dim {
		return fmt.Errorf("%d-dimensional point in a %d-dimensional space: %w", len(p), a.opts.Dim, ErrBadPoint)
	}
	for _, x := range p {
		if math.IsNaN(x) || x < 0 || x > 1 {
			return fmt.Errorf("point %v: %w", p, ErrBadPoint)
		}
	}
	return nil
}

// current brings a.m to the map stored in b at the version b reads, with
// the known renewals folded in.
func (a *Authority) current(b kv.Bucket) error {
	v, err := readVersion(b)
	if err != nil {
		return err
	}
	if a.m != nil && v == a.version && !a.stale {
		return nil
	}
	m, err := readMap(b, v, a.opts.Dim, a.opts.TTL)
	if err != nil {
		return err
	}
	for id, e := range a.known {
		if m.Extend(id, e) != nil {
			delete(a.known, id) // a holder no longer
		}
	}
	a.m, a.version, a.stale = m, v, false
	a.stats.Loads++
	return nil
}

// readRenewals brings a.m to the stored map and reads every renewal row
// into it.
func (a *Authority) readRenewals(b kv.Bucket) error {
	if err := a.current(b); err != nil {
		return err
	}
	rows, err := readRenewals(b)
	if err != nil {
		return err
	}
	a.known = make(map[can.PeerID]time.Time, len(rows))
	for id, e := range rows {
		if a.m.Extend(id, e) == nil {
			a.known[id] = e
		}
	}
	return nil
}

// errNoChange ends an operation's transaction that has nothing to write.
var errNoChange = errors.New("no change")

// shape runs op, a change of the map's shape, in one transaction and
// stores the map it leaves. Op may read b; it returns the leaves it
// changed and the holders it removed; errNoChange from it writes nothing.
// A refused op must leave the map as it was (can.Map's operations do).
func (a *Authority) shape(op func(b kv.Bucket, m *can.Map, now time.Time) ([]can.Leaf, []can.PeerID, error)) ([]can.Leaf, error) {
	now := a.opts.Now()
	var (
		changed []can.Leaf
		removed []can.PeerID
		read    map[can.PeerID]time.Time
		next    uint64
		size    int
	)
	err := a.store.Update(func(tx kv.Tx) error {
		changed, removed, read = nil, nil, map[can.PeerID]time.Time{} // a run again starts afresh (kv.Store.Update)
		b := tx.Bucket(Bucket)
		if err := a.current(b); err != nil {
			return err
		}
		var err error
		if changed, removed, err = op(b, a.m, now); err != nil {
			return err
		}
		a.stale = true
		// The holders whose zones changed are certified with the
		// expiry of their last renewal, wherever it was granted.
		asked := map[can.PeerID]bool{}
		for _, l := range changed {
			if asked[l.Holder] {
				continue
			}
			asked[l.Holder] = true
			e, ok, err := readRenewal(b, l.Holder)
			if err != nil {
				return err
			}
			if ok {
				read[l.Holder] = e
				a.m.Extend(l.Holder, e)
			}
		}
		for _, id := range removed {
			if err := deleteRenewal(b, id); err != nil {
				return err
			}
		}
		next = a.version + 1
		size, err = writeMap(b, a.m, next)
		return err
	})
	if errors.Is(err, errNoChange) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a.version, a.stale = next, false
	a.stats.Writes++
	a.stats.MapBytes = size
	for id, e := range read {
		a.known[id] = e
	}
	for _, id := range removed {
		delete(a.known, id)
	}
	return changed, nil
}

// grant signs what asker is told: its leaves, all leaves of its
// neighbours, and the changed leaves besides, as the map has them now.
func (a *Authority) grant(asker can.PeerID, changed []can.Leaf) (Grant, error) {
	var g Grant
	seen := map[can.Path]bool{}
	add := func(l can.Leaf, held bool) error {
		if seen[l.Path] {
			return nil
		}
		seen[l.Path] = true
		s, err := a.sign.sign(l)
		if err != nil {
			return err
		}
		if held {
			g.Held = append(g.Held, s.cert)
		} else {
			g.Others = append(g.Others, s.cert)
		}
		g.raw = append(g.raw, s.raw)
		return nil
	}
	for _, l := range a.m.Held(asker) {
		if err := add(l, true); err != nil {
			return Grant{}, err
		}
	}
	for _, n := range a.m.Neighbours(asker) {
		for _, l := range a.m.Held(n) {
			if err := add(l, false); err != nil {
				return Grant{}, err
			}
		}
	}
	for _, c := range changed {
		l, err := a.m.Certify(c.Path)
		if err != nil {
			continue // merged into a leaf listed already, or gone with the map
		}
		if err := add(l, l.Holder == asker); err != nil {
			return Grant{}, err
		}
	}
	return g, nil
}
