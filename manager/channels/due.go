package channels

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// The due index lets a scheduling round read the channels that can be
// due instead of every channel: a channel of group g whose last round
// was submitted at t sits at key g · t · ID, so the channels of group g
// due at now by an interval of at least b lie before g · (now−b). A
// channel to crawl soon, or never submitted, sits at t = 0; a removed
// channel, or a paused one not asked for, is not in it (never due).
//
// The channel bucket of a read-write transaction keeps it (channelsIn).
var bucketDue = []byte("due") // group · unix nanoseconds · ID → nothing

// metaDueIndex is set once the index was built from the records.
const metaDueIndex = "due-index"

// schedFields are the fields of a channel record the index follows.
type schedFields struct {
	ID         string    `json:"id"`
	Group      int       `json:"group"`
	LastSubmit time.Time `json:"last_submit"`
	Paused     bool      `json:"paused,omitempty"`
	CrawlSoon  bool      `json:"crawl_soon,omitempty"`
	RemovedAt  time.Time `json:"removed_at,omitzero"`
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// dueKey returns where a channel record sits in the index; nil when it is
// not listed or does not decode.
func dueKey(record []byte) []byte {
	var f schedFields
	if record == nil || json.Unmarshal(record, &f) != nil || !f.RemovedAt.IsZero() || f.Paused && !f.CrawlSoon {
		return nil
	}
	var at uint64
	if !f.CrawlSoon && !f.LastSubmit.IsZero() {
		at = uint64(max(f.LastSubmit.UnixNano(), 0))
	}
	k := make([]byte, 0, 1+8+len(f.ID))
	k = append(k, byte(min(max(f.Group, 0), math.MaxUint8)))
	k = binary.BigEndian.AppendUint64(k, at)
	return append(k, f.ID...)
}

// channelBucket is the channel bucket, keeping the due index as records
// change. It remembers the records read, whose index entry a write moves,
// so that a read and write of one record is one read (a round trip on
// PostgreSQL), not two.
type channelBucket struct {
	kv.Bucket
	due  kv.Bucket
	read map[string][]byte
}

// channelsIn returns tx's channel bucket; writes to it keep the index.
func channelsIn(tx kv.Tx) channelBucket {
	return channelBucket{Bucket: tx.Bucket(bucketChannels), due: tx.Bucket(bucketDue), read: map[string][]byte{}}
}

// Get reads a record and remembers it.
func (b channelBucket) Get(key []byte) []byte {
	v := b.Bucket.Get(key)
	b.read[string(key)] = v
	return v
}

// Put stores a record and moves its index entry.
func (b channelBucket) Put(key, value []byte) error {
	old, ok := b.read[string(key)]
	if !ok {
		old = b.Bucket.Get(key)
	}
	return b.putKnown(key, old, value)
}

// putKnown is Put when the stored record old is known (nil: none).
func (b channelBucket) putKnown(key, old, value []byte) error {
	if err := b.reindex(dueKey(old), dueKey(value)); err != nil {
		return err
	}
	b.read[string(key)] = value
	return b.Bucket.Put(key, value)
}

// Delete removes a record and its index entry.
func (b channelBucket) Delete(key []byte) error {
	if err := b.reindex(dueKey(b.Get(key)), nil); err != nil {
		return err
	}
	b.read[string(key)] = nil
	return b.Bucket.Delete(key)
}

func (b channelBucket) reindex(old, cur []byte) error {
	if bytes.Equal(old, cur) {
		return nil
	}
	if old != nil {
		if err := b.due.Delete(old); err != nil {
			return err
		}
	}
	if cur != nil {
		return b.due.Put(cur, []byte{})
	}
	return nil
}

// buildDueIndex builds the index from the records once: a database from
// before it had none. Every later opening only reads the mark.
func buildDueIndex(db kv.Store) error {
	built := false
	err := db.View(func(tx kv.Tx) error {
		built = tx.Bucket(bucketMeta).Get([]byte(metaDueIndex)) != nil
		return nil
	})
	if err != nil || built {
		return err
	}
	return db.Update(func(tx kv.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta.Get([]byte(metaDueIndex)) != nil {
			return nil
		}
		due := tx.Bucket(bucketDue)
		var keys [][]byte
		err := tx.Bucket(bucketChannels).ForEach(func(_, v []byte) error {
			if k := dueKey(v); k != nil {
				keys = append(keys, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := due.Put(k, []byte{}); err != nil {
				return err
			}
		}
		return meta.Put([]byte(metaDueIndex), []byte("1"))
	})
}

// Due returns the channels that can be due at now, in index order: those
// of group g whose last round was submitted at least bounds[g] before now
// (bounds[g] must not exceed the recrawl interval of any channel in group
// g; groups past bounds take 0), those to crawl soon and those never
// submitted. keep, when set, picks the IDs to read (a manager's share).
// The caller decides which of them are due.
func (d *DB) Due(bounds []time.Duration, now time.Time, keep func(id string) bool) ([]Channel, error) {
	var out []Channel
	err := d.db.View(func(tx kv.Tx) error {
		out = nil
		chs := tx.Bucket(bucketChannels)
		var ids [][]byte
		due := tx.Bucket(bucketDue)
		// Group by group up to its cutoff; the groups past bounds whole.
		for g := 0; g <= len(bounds) && g <= math.MaxUint8; g++ {
			cutoff, last := uint64(math.MaxUint64), g == len(bounds)
			if !last {
				cutoff = uint64(max(now.Add(-bounds[g]).UnixNano(), 0))
			}
			err := due.ForEachFrom([]byte{byte(g)}, func(k, _ []byte) error {
				if len(k) < 9 {
					return fmt.Errorf("due index key %x too short", k)
				}
				if !last && (int(k[0]) != g || binary.BigEndian.Uint64(k[1:9]) > cutoff) {
					return errStop
				}
				if keep == nil || keep(string(k[9:])) {
					ids = append(ids, bytes.Clone(k[9:]))
				}
				return nil
			})
			if err != nil && !errors.Is(err, errStop) {
				return err
			}
		}
		for _, id := range ids {
			var c Channel
			found, err := getJSON(chs, id, &c)
			if err != nil {
				return err
			}
			if found {
				out = append(out, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the channels that can be due: %w", err)
	}
	return out, nil
}
