package botkeys

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/internal/boltfile"
)

// FileName is the registry's bbolt file in the directory given to Open.
const FileName = "botkeys.db"

// ReasonSuperseded is the withdrawal reason of a peer's key replaced by a
// newer one.
const ReasonSuperseded = "superseded"

var (
	bucketKeys  = []byte("keys")  // keyid → Status (JSON)
	bucketPeers = []byte("peers") // peer ID → keyid of its latest key
)

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

// Registry is the set of certified keys. It is safe for concurrent use.
//
// Invariant: of a peer's keys, only the latest (bucketPeers) may be live.
type Registry struct {
	db *bolt.DB

	// mu serializes changes and guards live, the live keys by keyid,
	// which change only after the file's transaction committed.
	mu   sync.Mutex
	live map[string]botauth.JWK
}

// Open opens (creating if needed) the registry in dir.
func Open(dir string) (*Registry, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open bot key registry: %w", err)
	}
	path := filepath.Join(dir, FileName)
	db, err := boltfile.Open(path, &bolt.Options{Timeout: time.Second}, boltfile.Policy{Name: "bot key registry",
		Advice: "it holds the volunteers' key certifications and withdrawals: restore it from a backup"})
	if err != nil {
		return nil, err
	}
	r := &Registry{db: db, live: make(map[string]botauth.JWK)}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketKeys, bucketPeers} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketKeys).ForEach(func(k, v []byte) error {
			var s Status
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("key %q: %w", k, err)
			}
			if s.Live() {
				r.live[s.KeyID] = botauth.NewJWK(s.PublicKey)
			}
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open bot key registry %s: %w", path, err)
	}
	return r, nil
}

// Close closes the file.
func (r *Registry) Close() error { return r.db.Close() }

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
	r.mu.Lock()
	defer r.mu.Unlock()
	var added, superseded bool
	var old Status
	err := r.db.Update(func(tx *bolt.Tx) error {
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
			if ok && !s.Live() && s.Reason != ReasonSuperseded {
				// Withdrawn for cause: the peer is out, whatever key it
				// makes next.
				return fmt.Errorf("%w: the peer's key was withdrawn on %s (%s)", ErrWithdrawn, s.Withdrawn.UTC().Format(time.RFC3339), s.Reason)
			}
			if ok && s.Live() {
				s.Withdrawn, s.Reason = now, ReasonSuperseded
				if err := putStatus(keys, s); err != nil {
					return err
				}
				old, superseded = s, true
			}
		}
		if err := putStatus(keys, Status{KeyID: keyid, PeerID: peerID, PublicKey: pub, Certified: now}); err != nil {
			return err
		}
		added = true
		return peers.Put([]byte(peerID), []byte(keyid))
	})
	if err != nil {
		return "", fmt.Errorf("certify bot key %s of %s: %w", keyid, peerID, err)
	}
	if superseded {
		delete(r.live, old.KeyID)
	}
	if added {
		r.live[keyid] = botauth.NewJWK(pub)
	}
	return keyid, nil
}

// Withdraw takes a key out of the directory for good: keyidOrPeer is a
// keyid, or a peer ID whose live key goes. Withdrawing a withdrawn key
// changes nothing (the first reason stays); an unknown name is ErrNotFound.
func (r *Registry) Withdraw(keyidOrPeer, reason string, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := ""
	err := r.db.Update(func(tx *bolt.Tx) error {
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
		if err := putStatus(keys, s); err != nil {
			return err
		}
		gone = s.KeyID
		return nil
	})
	if err != nil {
		return fmt.Errorf("withdraw bot key %s: %w", keyidOrPeer, err)
	}
	if gone != "" {
		delete(r.live, gone)
	}
	return nil
}

// PeerWithdrawn reports whether peerID's key was withdrawn for cause
// (anything but being superseded by its own new key): such a peer gets no
// new key certified.
func (r *Registry) PeerWithdrawn(peerID string) bool {
	out := false
	r.db.View(func(tx *bolt.Tx) error {
		latest := tx.Bucket(bucketPeers).Get([]byte(peerID))
		if latest == nil {
			return nil
		}
		s, ok, err := getStatus(tx.Bucket(bucketKeys), string(latest))
		out = err == nil && ok && !s.Live() && s.Reason != ReasonSuperseded
		return nil
	})
	return out
}

// Directory returns the key directory: every live key, sorted by keyid.
func (r *Registry) Directory() botauth.Directory {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := slices.Sorted(maps.Keys(r.live))
	d := botauth.Directory{Keys: make([]botauth.JWK, 0, len(ids))}
	for _, id := range ids {
		d.Keys = append(d.Keys, r.live[id])
	}
	return d
}

// Status returns what the registry knows of keyid, or ErrNotFound.
func (r *Registry) Status(keyid string) (Status, error) {
	var s Status
	err := r.db.View(func(tx *bolt.Tx) error {
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

func getStatus(b *bolt.Bucket, keyid string) (Status, bool, error) {
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

func putStatus(b *bolt.Bucket, s Status) error {
	v, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode record of key %s: %w", s.KeyID, err)
	}
	return b.Put([]byte(s.KeyID), v)
}
