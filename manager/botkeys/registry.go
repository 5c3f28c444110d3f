package botkeys

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// FileName is the registry's bbolt file in Options.Dir.
const FileName = "botkeys.db"

// PostgresTable is the registry's table in PostgreSQL.
const PostgresTable = "hivecrawl_botkeys"

// ReasonSuperseded is the withdrawal reason of a peer's key replaced by a
// newer one.
const ReasonSuperseded = "superseded"

var (
	bucketKeys  = []byte("keys")  // keyid → Status (JSON)
	bucketPeers = []byte("peers") // peer ID → keyid of its latest key
)

// Buckets are the buckets a store given to New must have.
var Buckets = [][]byte{bucketKeys, bucketPeers}

// filePolicy is how boltfile treats a damaged registry file.
var filePolicy = boltfile.Policy{Name: "bot key registry",
	Advice: "it holds the volunteers' key certifications and withdrawals: restore it from a backup"}

// Status is what the registry knows of one key.
type Status struct {
	KeyID     string            `json:"keyid"`
	PeerID    string            `json:"peer"`
	PublicKey ed25519.PublicKey `json:"public_key"`
	Certified time.Time         `json:"certified"`
	// Withdrawn is when the key left the directory; zero while it is live.
	Withdrawn time.Time `json:"withdrawn,omitzero"`
	// Reason is why it was withdrawn.
	Reason string `json:"reason,omitempty"`
}

// Live reports whether the key is in the directory.
func (s Status) Live() bool { return s.Withdrawn.IsZero() }

// forCause reports whether the key was withdrawn for anything but being
// superseded by its peer's own new key.
func (s Status) forCause() bool { return !s.Live() && s.Reason != ReasonSuperseded }

// Options configure OpenWith.
type Options struct {
	// Dir holds the registry's bbolt file (FileName). With Postgres set,
	// a FileName there is a registry from before, imported at Open.
	Dir string
	// Postgres, when set, is the PostgreSQL database (a postgres:// URL)
	// the registry lives in, in PostgresTable, shared by every manager
	// of that database.
	Postgres string
	// Now is the clock that ages the cached directory (DirectoryRefresh)
	// and dates an import's withdrawals. Default time.Now.
	Now func() time.Time
}

// Registry is the set of certified keys. It is safe for concurrent use,
// and on a shared store by several managers at once: every change is one
// transaction.
//
// Invariant: of a peer's keys, only the latest (bucketPeers) may be live.
type Registry struct {
	db  kv.Store
	now func() time.Time

	// fill serializes reads of the directory from the store, so that the
	// requests arriving while one is under way wait for it.
	fill sync.Mutex

	mu   sync.Mutex        // guards the fields below
	dir  botauth.Directory // the live keys as last read from the store
	read time.Time         // when that read began; zero when none is kept
	gen  uint64            // changes made through this Registry
}

// Open opens (creating if needed) the registry in the bbolt file FileName
// in dir.
func Open(dir string) (*Registry, error) {
	return OpenWith(context.Background(), Options{Dir: dir})
}

// OpenWith opens (creating if needed) the registry that opts name.
func OpenWith(ctx context.Context, opts Options) (*Registry, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	path := filepath.Join(opts.Dir, FileName)
	if opts.Postgres == "" {
		if opts.Dir == "" {
			return nil, errors.New("open bot key registry: no directory")
		}
		if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("open bot key registry: %w", err)
		}
		db, err := kv.OpenBolt(path, &bolt.Options{Timeout: time.Second}, filePolicy, Buckets...)
		if err != nil {
			return nil, err // boltfile.Open names the file
		}
		return New(db, opts.Now), nil
	}
	db, err := kv.OpenPostgres(ctx, opts.Postgres, PostgresTable, Buckets...)
	if err != nil {
		return nil, fmt.Errorf("open bot key registry: %w", err)
	}
	if opts.Dir != "" {
		if err := importFile(db, path, opts.Now()); err != nil {
			db.Close()
			return nil, fmt.Errorf("open bot key registry: %w", err)
		}
	}
	return New(db, opts.Now), nil
}

// New returns the registry kept in db, which must have Buckets; now ages
// the cached directory. Close closes db.
func New(db kv.Store, now func() time.Time) *Registry {
	return &Registry{db: db, now: now}
}

// Close closes the store.
func (r *Registry) Close() error { return r.db.Close() }

// changed drops the cached directory after a change made through r.
func (r *Registry) changed() {
	r.mu.Lock()
	r.gen++
	r.read = time.Time{}
	r.mu.Unlock()
}

// Certify records pub as peerID's key and puts it in the directory,
// returning its keyid (botauth.Thumbprint). Certifying a live key again for
// the same peer changes nothing; a new key of a peer withdraws its older
// one (ReasonSuperseded). Certify refuses a withdrawn key (ErrWithdrawn)
// and one certified for another peer (ErrOtherPeer).
func (r *Registry) Certify(peerID string, pub ed25519.PublicKey, now time.Time) (string, error) {
	if peerID == "" {
		return "", fmt.Errorf("certify bot key: %w: no peer ID", ErrBadKey)
	}
	if len(pub) != ed25519.PublicKeySize {
		return "", fmt.Errorf("certify bot key of %s: %w: %d bytes, want %d", peerID, ErrBadKey, len(pub), ed25519.PublicKeySize)
	}
	keyid := botauth.Thumbprint(pub)
	err := r.db.Update(func(tx kv.Tx) error {
		keys, peers := tx.Bucket(bucketKeys), tx.Bucket(bucketPeers)
		if s, ok, err := getStatus(keys, keyid); err != nil {
			return err
		} else if ok {
			switch {
			case s.PeerID != peerID:
				return fmt.Errorf("%w (%s)", ErrOtherPeer, s.PeerID)
			case !s.Live():
				return fmt.Errorf("%w on %s (%s): make a new key", ErrWithdrawn, s.Withdrawn.UTC().Format(time.RFC3339), s.Reason)
			}
			return nil
		}
		if prev := peers.Get([]byte(peerID)); prev != nil {
			s, ok, err := getStatus(keys, string(prev))
			if err != nil {
				return err
			}
			if ok && s.forCause() {
				// Withdrawn for cause: the peer is out, whatever key it
				// makes next.
				return fmt.Errorf("%w: the peer's key was withdrawn on %s (%s)", ErrWithdrawn, s.Withdrawn.UTC().Format(time.RFC3339), s.Reason)
			}
			if ok && s.Live() {
				s.Withdrawn, s.Reason = now, ReasonSuperseded
				if err := putStatus(keys, s); err != nil {
					return err
				}
			}
		}
		if err := putStatus(keys, Status{KeyID: keyid, PeerID: peerID, PublicKey: pub, Certified: now}); err != nil {
			return err
		}
		return peers.Put([]byte(peerID), []byte(keyid))
	})
	if err != nil {
		return "", fmt.Errorf("certify bot key %s of %s: %w", keyid, peerID, err)
	}
	r.changed()
	return keyid, nil
}

// Withdraw takes a key out of the directory for good: keyidOrPeer is a
// keyid, or a peer ID whose live key goes. Withdrawing a withdrawn key
// changes nothing (the first reason stays); an unknown name is ErrNotFound.
func (r *Registry) Withdraw(keyidOrPeer, reason string, now time.Time) error {
	err := r.db.Update(func(tx kv.Tx) error {
		keys, peers := tx.Bucket(bucketKeys), tx.Bucket(bucketPeers)
		s, ok, err := getStatus(keys, keyidOrPeer)
		if err != nil {
			return err
		}
		if !ok {
			latest := peers.Get([]byte(keyidOrPeer))
			if latest == nil {
				return ErrNotFound
			}
			if s, ok, err = getStatus(keys, string(latest)); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("peer's key %s has no record", latest)
			}
		}
		if !s.Live() {
			return nil
		}
		s.Withdrawn, s.Reason = now, reason
		return putStatus(keys, s)
	})
	if err != nil {
		return fmt.Errorf("withdraw bot key %s: %w", keyidOrPeer, err)
	}
	r.changed()
	return nil
}

// PeerWithdrawn reports whether peerID's key was withdrawn for cause
// (anything but being superseded by its own new key): such a peer gets no
// new key certified. It reads the store, so it sees a withdrawal made by
// another manager of a shared database as soon as that committed.
func (r *Registry) PeerWithdrawn(peerID string) (bool, error) {
	out := false
	err := r.db.View(func(tx kv.Tx) error {
		latest := tx.Bucket(bucketPeers).Get([]byte(peerID))
		if latest == nil {
			return nil
		}
		s, ok, err := getStatus(tx.Bucket(bucketKeys), string(latest))
		out = ok && s.forCause()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("read bot key of peer %s: %w", peerID, err)
	}
	return out, nil
}

// Status returns what the registry knows of keyid, or ErrNotFound.
func (r *Registry) Status(keyid string) (Status, error) {
	var s Status
	err := r.db.View(func(tx kv.Tx) error {
		var ok bool
		var err error
		s, ok, err = getStatus(tx.Bucket(bucketKeys), keyid)
		if err == nil && !ok {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		return Status{}, fmt.Errorf("bot key %s: %w", keyid, err)
	}
	return s, nil
}

func getStatus(b kv.Bucket, keyid string) (Status, bool, error) {
	v := b.Get([]byte(keyid))
	if v == nil {
		return Status{}, false, nil
	}
	var s Status
	if err := json.Unmarshal(v, &s); err != nil {
		return Status{}, false, fmt.Errorf("decode record of key %s: %w", keyid, err)
	}
	return s, true, nil
}

func putStatus(b kv.Bucket, s Status) error {
	v, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode record of key %s: %w", s.KeyID, err)
	}
	return b.Put([]byte(s.KeyID), v)
}
