package botkeys

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// DirectoryRefresh is how long Directory serves the live keys it read
// from the store before reading them again. A change made through the
// same Registry shows at once; one made by another manager of a shared
// database shows within DirectoryRefresh (and at a site within
// CacheMaxAge more).
const DirectoryRefresh = 2 * time.Second

// Directory returns the key directory: every live key, sorted by keyid.
func (r *Registry) Directory() (botauth.Directory, error) {
	if d, ok := r.cached(); ok {
		return d, nil
	}
	r.fill.Lock()
	defer r.fill.Unlock()
	if d, ok := r.cached(); ok {
		return d, nil // read while this call waited
	}
	r.mu.Lock()
	gen := r.gen
	r.mu.Unlock()
	start := r.now()
	d, err := r.readDirectory()
	if err != nil {
		return botauth.Directory{}, err
	}
	r.mu.Lock()
	if r.gen == gen {
		// Not when a change was made through r meanwhile: the read may
		// predate it.
		r.dir, r.read = d, start
	}
	r.mu.Unlock()
	return cloneDirectory(d), nil
}

// cached returns the directory last read, if it is recent enough.
func (r *Registry) cached() (botauth.Directory, bool) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read.IsZero() || now.Before(r.read) || now.Sub(r.read) >= DirectoryRefresh {
		return botauth.Directory{}, false
	}
	return cloneDirectory(r.dir), true
}

// readDirectory reads the live keys from the store.
func (r *Registry) readDirectory() (botauth.Directory, error) {
	var d botauth.Directory
	err := r.db.View(func(tx kv.Tx) error {
		d = botauth.Directory{Keys: []botauth.JWK{}} // a run again starts afresh
		// Keyed by keyid: the directory comes out sorted by keyid.
		return tx.Bucket(bucketKeys).ForEach(func(k, v []byte) error {
			var s Status
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("decode record of key %s: %w", k, err)
			}
			if s.Live() {
				d.Keys = append(d.Keys, botauth.NewJWK(s.PublicKey))
			}
			return nil
		})
	})
	if err != nil {
		return botauth.Directory{}, fmt.Errorf("read the bot key directory: %w", err)
	}
	return d, nil
}

func cloneDirectory(d botauth.Directory) botauth.Directory {
	return botauth.Directory{Keys: slices.Clone(d.Keys)}
}
