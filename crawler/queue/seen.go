package queue

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The seen set: the deliveries of tasks the overlay peer has taken on
// (queued, balanced to a neighbour, received in a handover), each named by
// the overlay as task ID and lease epoch, so that a genuine task replayed
// to it is refused, also after a restart. A record is kept until
// its expiry, after which the task is refused as expired anyway, so the set
// holds only the tasks of the last lease period. Both buckets are created
// by the first Seen.
var (
	seenBucket       = []byte("seen")        // task ID → expiry (8 bytes, Unix ns, big endian)
	seenExpiryBucket = []byte("seen-expiry") // expiry (8 bytes) + task ID → nothing, for pruning in order
)

// Seen records task id as seen until expires and reports whether it was
// recorded already (an earlier expiry is extended, never shortened). It
// first forgets the records whose expiry is before now. Check and record
// are one transaction, durable when Seen returns: a crash after Seen and
// before the task is queued makes the task refused next time, never
// queued twice.
func (q *Queue) Seen(id string, expires, now time.Time) (seen bool, err error) {
	if id == "" {
		return false, fmt.Errorf("record task as seen: empty ID")
	}
	err = q.db.Update(func(tx *bolt.Tx) error {
		ids, err := tx.CreateBucketIfNotExists(seenBucket)
		if err != nil {
			return err
		}
		byExpiry, err := tx.CreateBucketIfNotExists(seenExpiryBucket)
		if err != nil {
			return err
		}
		if err := pruneSeen(ids, byExpiry, now); err != nil {
			return err
		}
		old := ids.Get([]byte(id))
		seen = old != nil
		until := unixNano(expires)
		if seen {
			if len(old) != 8 {
				return fmt.Errorf("%w: seen record of %s is %d bytes, want 8", ErrCorrupt, id, len(old))
			}
			prev := int64(binary.BigEndian.Uint64(old))
			if prev >= until {
				return nil
			}
			if err := byExpiry.Delete(expiryKey(prev, id)); err != nil {
				return err
			}
		}
		if err := ids.Put([]byte(id), binary.BigEndian.AppendUint64(nil, uint64(until))); err != nil {
			return err
		}
		return byExpiry.Put(expiryKey(until, id), nil)
	})
	if err != nil {
		return false, fmt.Errorf("record task %s as seen: %w", id, err)
	}
	return seen, nil
}

// SeenCount returns how many task IDs the seen set holds.
func (q *Queue) SeenCount() (int, error) {
	n := 0
	err := q.db.View(func(tx *bolt.Tx) error {
		if ids := tx.Bucket(seenBucket); ids != nil {
			n = count(ids)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count seen tasks: %w", err)
	}
	return n, nil
}

// pruneSeen deletes the records whose expiry is before now, oldest first.
func pruneSeen(ids, byExpiry *bolt.Bucket, now time.Time) error {
	c := byExpiry.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.First() {
		if len(k) < 8 {
			return fmt.Errorf("%w: seen expiry key of %d bytes", ErrCorrupt, len(k))
		}
		if int64(binary.BigEndian.Uint64(k[:8])) >= unixNano(now) {
			return nil
		}
		if err := ids.Delete(k[8:]); err != nil {
			return err
		}
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// expiryKey orders records by expiry.
func expiryKey(until int64, id string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(until)), id...)
}

// unixNano is t in Unix nanoseconds, clamped to what an int64 holds from
// 1970 on, so keys sort by time as unsigned numbers.
func unixNano(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, 0)):
		return 0
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}
