package botkeys

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// ImportedSuffix is added to the name of a registry file whose keys were
// imported into PostgreSQL; the file is kept as it was, as a backup.
const ImportedSuffix = ".imported"

// importFile merges the registry in the bbolt file at path, if there is
// one, into db, and renames the file with ImportedSuffix, so that a
// manager that moves to a shared database keeps the keys it certified
// and the withdrawals it made. Several managers' files merge: see
// mergePeer. Running it again on the same file changes nothing.
func importFile(db kv.Store, path string, now time.Time) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	file, err := kv.OpenBolt(path, &bolt.Options{Timeout: time.Second, ReadOnly: true}, filePolicy)
	if err != nil {
		return err // boltfile.Open names the file
	}
	var recs []Status
	err = file.View(func(tx kv.Tx) error {
		return tx.Bucket(bucketKeys).ForEach(func(k, v []byte) error {
			var s Status
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("decode record of key %s: %w", k, err)
			}
			recs = append(recs, s)
			return nil
		})
	})
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("read %s to import it: %w", path, err)
	}
	byPeer := map[string][]Status{}
	for _, s := range recs {
		byPeer[s.PeerID] = append(byPeer[s.PeerID], s)
	}
	err = db.Update(func(tx kv.Tx) error {
		for _, peer := range slices.Sorted(maps.Keys(byPeer)) {
			if err := importPeer(tx, peer, byPeer[peer], now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	if err := os.Rename(path, path+ImportedSuffix); err != nil {
		return fmt.Errorf("imported %s, but: %w", path, err)
	}
	return nil
}

// importPeer merges the file's records of one peer with what the store
// holds of it.
func importPeer(tx kv.Tx, peer string, file []Status, now time.Time) error {
	keys, peers := tx.Bucket(bucketKeys), tx.Bucket(bucketPeers)
	var stored []Status
	latest := string(peers.Get([]byte(peer)))
	if latest != "" {
		s, ok, err := getStatus(keys, latest)
		if err != nil {
			return err
		}
		if ok {
			stored = append(stored, s)
		}
	}
	for _, f := range file {
		if f.KeyID == latest {
			continue // read above
		}
		s, ok, err := getStatus(keys, f.KeyID)
		if err != nil {
			return err
		}
		if ok {
			stored = append(stored, s)
		}
	}
	recs, latest := mergePeer(peer, stored, latest, file, now)
	for _, s := range recs {
		if err := putStatus(keys, s); err != nil {
			return err
		}
	}
	if latest == "" {
		return nil
	}
	return peers.Put([]byte(peer), []byte(latest))
}

// mergePeer merges two registries' records of one peer: stored, the
// store's (latest is the keyid its index names, or ""), and file, another
// registry's. It returns the records to write and the keyid the peer's
// index names then. Withdrawals win, so no import brings a key back:
//
//   - a key known to both keeps its earliest certification and its
//     strongest withdrawal (for cause over superseded, then the earliest);
//     a key the store holds for another peer keeps the store's record;
//   - when either side withdrew one of the peer's keys for cause, every
//     live key of the peer is withdrawn for that reason at now, and the
//     index names the key withdrawn for cause: the peer stays out;
//   - otherwise the live key certified last stays live (on a tie, the
//     store's) and any other live key is withdrawn at now as superseded,
//     keeping the registry's invariant.
func mergePeer(peer string, stored []Status, latest string, file []Status, now time.Time) ([]Status, string) {
	recs := map[string]Status{}
	for _, s := range stored {
		recs[s.KeyID] = s
	}
	for _, f := range file {
		s, ok := recs[f.KeyID]
		switch {
		case !ok:
			recs[f.KeyID] = f
		case s.PeerID != peer:
			// Certified for another peer: Certify would refuse it.
		default:
			recs[f.KeyID] = mergeStatus(s, f)
		}
	}
	ids := slices.Sorted(maps.Keys(recs))
	var cause, winner *Status
	for _, id := range ids {
		s := recs[id]
		if s.PeerID != peer {
			continue
		}
		switch {
		case s.forCause():
			if cause == nil || s.Withdrawn.Before(cause.Withdrawn) {
				cause = &s
			}
		case s.Live():
			if winner == nil || s.Certified.After(winner.Certified) ||
				s.Certified.Equal(winner.Certified) && s.KeyID == latest {
				winner = &s
			}
		}
	}
	switch {
	case cause != nil:
		latest = cause.KeyID
	case winner != nil:
		latest = winner.KeyID
	case latest == "":
		// All superseded, the store knows nothing of the peer: the one
		// certified last.
		for _, id := range ids {
			if s := recs[id]; s.PeerID == peer && (latest == "" || !s.Certified.Before(recs[latest].Certified)) {
				latest = id
			}
		}
	}
	out := make([]Status, 0, len(recs))
	for _, id := range ids {
		s := recs[id]
		if s.PeerID != peer {
			continue
		}
		if s.Live() && id != latest {
			s.Withdrawn, s.Reason = now, ReasonSuperseded
			if cause != nil {
				s.Reason = cause.Reason
			}
		}
		out = append(out, s)
	}
	return out, latest
}

// mergeStatus merges two records of one key.
func mergeStatus(a, b Status) Status {
	if b.Certified.Before(a.Certified) {
		a.Certified = b.Certified
	}
	if withdrawnBefore(b, a) {
		a.Withdrawn, a.Reason = b.Withdrawn, b.Reason
	}
	return a
}

// withdrawnBefore reports whether a's withdrawal outranks b's: any over
// none, for cause over superseded, then the earlier.
func withdrawnBefore(a, b Status) bool {
	switch {
	case a.Live():
		return false
	case b.Live():
		return true
	case a.forCause() != b.forCause():
		return a.forCause()
	}
	return a.Withdrawn.Before(b.Withdrawn)
}
