package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

var (
	bucketURLs     = []byte("urls")     // URL → Entry
	bucketReceipts = []byte("receipts") // task ID → stored
	bucketPeers    = []byte("peers")    // peer ID → Contributor
	bucketMeta     = []byte("meta")
	keyTotals      = []byte("totals")
)

// Entry is the index's record of one URL: its latest content.
type Entry struct {
	Digest       task.Digest `json:"digest"`
	ETag         string      `json:"etag,omitempty"`
	LastModified string      `json:"last_modified,omitempty"`
	Fetched      time.Time   `json:"fetched"`
	Task         string      `json:"task"`
	// Location is the latest WARC record of the URL's text; empty when the
	// page had no text (noindex).
	Location
}

// stored is a receipt kept for repeats of the same upload.
type stored struct {
	Peer string `json:"peer"`
	Raw  []byte `json:"raw"`
}

// Contributor is one peer's totals.
type Contributor struct {
	Peer     string `json:"peer"`
	Nickname string `json:"nickname,omitempty"`
	Receipts int    `json:"receipts"`
	// Credits is the credit granted and not revoked, Pending the part of
	// it waiting for a spot-check, Revoked what failed one.
	Credits float64   `json:"credits"`
	Pending float64   `json:"pending,omitempty"`
	Revoked float64   `json:"revoked,omitempty"`
	Pages   int64     `json:"pages"`
	Bytes   int64     `json:"bytes"`
	Last    time.Time `json:"last"`
}

// Totals are the storage module's sums.
type Totals struct {
	Uploads    int   `json:"uploads"`
	Duplicates int   `json:"duplicates"`
	Refused    int   `json:"refused"`
	Pages      int64 `json:"pages"`
	Records    int64 `json:"records"`
	Bytes      int64 `json:"bytes"`
	// Checked counts results sent to a spot-check (every result with
	// credit), Unchecked the others (they earned none; before every result
	// was checked, also those a peer's record let through); Passed and
	// Failed the verdicts; Untold those no check could confirm or
	// disprove; CheckFetches the pages checkers re-fetched; Quarantined
	// the WARC records of failed and untold results.
	Checked      int   `json:"checked,omitempty"`
	Unchecked    int   `json:"unchecked,omitempty"`
	Passed       int   `json:"passed,omitempty"`
	Failed       int   `json:"failed,omitempty"`
	Untold       int   `json:"untold,omitempty"`
	CheckFetches int64 `json:"check_fetches,omitempty"`
	Quarantined  int64 `json:"quarantined,omitempty"`
	// RecordedPages counts pages of results whose peer already had a
	// record (NewPeer results validated in a row) when they came, and
	// RecordedCheckFetches the pages re-fetched to check those: what
	// validation costs once peers have a record.
	RecordedPages        int64 `json:"recorded_pages,omitempty"`
	RecordedCheckFetches int64 `json:"recorded_check_fetches,omitempty"`
}

// indexFile is the index's name in the manager's data directory.
const indexFile = "storage.db"

// index is the storage module's bucket store: a bbolt file, or a
// PostgreSQL table several managers share.
type index struct{ db kv.Store }

// indexBuckets are the index's buckets.
var indexBuckets = [][]byte{bucketURLs, bucketReceipts, bucketPeers, bucketMeta,
	bucketChecks, bucketWritten, bucketVerdicts, bucketRecords, bucketDeferred, bucketFetches}

// openIndex opens the index at path; readOnly opens that of a stopped
// storage module for reading.
func openIndex(path string, readOnly bool) (*index, error) {
	db, err := kv.OpenBolt(path, &bolt.Options{Timeout: time.Second, ReadOnly: readOnly}, boltfile.Policy{Name: "storage index",
		Advice: "it holds the receipts and credit of every volunteer: restore it from a backup (the WARC files are not enough to rebuild it)"},
		indexBuckets...)
	if err != nil {
		return nil, err
	}
	return &index{db: db}, nil
}

// PostgresTable is the storage index's table in PostgreSQL.
const PostgresTable = "hivecrawl_storage"

// openPostgresIndex opens the index in the PostgreSQL database at dsn.
func openPostgresIndex(ctx context.Context, dsn string) (*index, error) {
	db, err := kv.OpenPostgres(ctx, dsn, PostgresTable, indexBuckets...)
	if err != nil {
		return nil, fmt.Errorf("open storage index: %w", err)
	}
	return &index{db: db}, nil
}

func (x *index) Close() error { return x.db.Close() }

// receipt returns the receipt stored for a task.
func (x *index) receipt(taskID string) (stored, bool, error) {
	return getOne[stored](x, bucketReceipts, []byte(taskID))
}

// verifiedReceipt returns the receipt stored for a task, verified with key.
func (x *index) verifiedReceipt(taskID string, key crypto.PubKey) (task.Receipt, bool, error) {
	s, found, err := x.receipt(taskID)
	if err != nil || !found {
		return task.Receipt{}, false, err
	}
	r, err := upload.VerifyReceipt(s.Raw, key)
	if err != nil {
		return task.Receipt{}, false, fmt.Errorf("receipt of task %s: %w", taskID, err)
	}
	return r, true, nil
}

// entries returns the index entries of urls (missing ones are absent).
func (x *index) entries(urls []string) (map[string]Entry, error) {
	out := make(map[string]Entry, len(urls))
	err := x.db.View(func(tx kv.Tx) error {
		b := tx.Bucket(bucketURLs)
		for _, u := range urls {
			var e Entry
			found, err := getJSON(b, []byte(u), &e)
			if err != nil {
				return err
			}
			if found {
				out[u] = e
			}
		}
		return nil
	})
	return out, err
}

// othersTasks returns the tasks of the known entries whose result another
// peer than peer uploaded: their pages existed by someone else's word, not
// only by peer's own earlier upload.
func (x *index) othersTasks(known map[string]Entry, peer string) (map[string]bool, error) {
	out := map[string]bool{}
	err := x.db.View(func(tx kv.Tx) error {
		b := tx.Bucket(bucketReceipts)
		seen := map[string]bool{}
		for _, e := range known {
			if e.Task == "" || seen[e.Task] {
				continue
			}
			seen[e.Task] = true
			var st stored
			found, err := getJSON(b, []byte(e.Task), &st)
			if err != nil {
				return err
			}
			if found && st.Peer != peer {
				out[e.Task] = true
			}
		}
		return nil
	})
	return out, err
}

// commit stores an accepted upload: its index entries, its receipt and the
// contributor's and global totals, in one transaction.
// A result with credit is stored with its pending check chk; with
// validating set, one without (it earned nothing) counts as unchecked.
func (x *index) commit(entries map[string]Entry, r task.Receipt, raw []byte, nickname string, records int, chk *checkRec, validating, recorded bool) error {
	return x.db.Update(func(tx kv.Tx) error {
		urls := tx.Bucket(bucketURLs)
		for u, e := range entries {
			if err := putJSON(urls, []byte(u), e); err != nil {
				return err
			}
		}
		if err := putJSON(tx.Bucket(bucketReceipts), []byte(r.TaskID), stored{Peer: r.Peer, Raw: raw}); err != nil {
			return err
		}
		if err := updateContributor(tx, r.Peer, func(c *Contributor) {
			if nickname != "" {
				c.Nickname = nickname
			}
			c.Receipts++
			c.Credits += r.Credits
			if r.State == task.CreditPending {
				c.Pending += r.Credits
			}
			c.Pages += int64(r.PagesAccepted)
			c.Bytes += r.Bytes
			c.Last = r.IssuedAt
		}); err != nil {
			return err
		}
		switch {
		case chk != nil:
			if err := putJSON(tx.Bucket(bucketChecks), []byte(chk.Task), chk); err != nil {
				return err
			}
			if err := putJSON(tx.Bucket(bucketWritten), []byte(chk.Task), chk.Written); err != nil {
				return err
			}
		case validating:
			if err := updateRecord(tx, r.Peer, func(pr *PeerRecord) { pr.Unchecked++ }); err != nil {
				return err
			}
		}
		return x.addTotalsTx(tx, func(t *Totals) {
			switch {
			case chk != nil:
				t.Checked++
			case validating:
				t.Unchecked++
			}
			if recorded {
				t.RecordedPages += int64(r.PagesAccepted)
			}
			t.Uploads++
			t.Pages += int64(r.PagesAccepted)
			t.Records += int64(records)
			t.Bytes += r.Bytes
		})
	})
}

func (x *index) count(fn func(*Totals)) error {
	return x.db.Update(func(tx kv.Tx) error { return x.addTotalsTx(tx, fn) })
}

func (x *index) addTotalsTx(tx kv.Tx, fn func(*Totals)) error {
	meta := tx.Bucket(bucketMeta)
	var t Totals
	if _, err := getJSON(meta, keyTotals, &t); err != nil {
		return err
	}
	fn(&t)
	return putJSON(meta, keyTotals, t)
}

func (x *index) totals() (Totals, error) {
	t, _, err := getOne[Totals](x, bucketMeta, keyTotals)
	return t, err
}

func (x *index) contributors() ([]Contributor, error) {
	out, err := getAll[Contributor](x, bucketPeers, "contributor")
	sort.Slice(out, func(i, j int) bool {
		if out[i].Credits != out[j].Credits {
			return out[i].Credits > out[j].Credits
		}
		return out[i].Peer < out[j].Peer
	})
	return out, err
}

func (x *index) entry(u string) (Entry, bool, error) {
	return getOne[Entry](x, bucketURLs, []byte(u))
}

// getOne reads the value of key in bucket, in a read transaction of its
// own. found is false when the key is absent, or the bucket is (a file
// the storage module never opened for writing since the bucket came).
func getOne[T any](x *index, bucket, key []byte) (v T, found bool, err error) {
	err = x.db.View(func(tx kv.Tx) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		found, err = getJSON(b, key, &v)
		return err
	})
	return v, found, err
}

// getAll decodes every value of bucket (none when it is absent); what
// names a value in errors.
func getAll[T any](x *index, bucket []byte, what string) ([]T, error) {
	var out []T
	err := x.db.View(func(tx kv.Tx) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, data []byte) error {
			var v T
			if err := json.Unmarshal(data, &v); err != nil {
				return fmt.Errorf("%s %s: %w", what, k, err)
			}
			out = append(out, v)
			return nil
		})
	})
	return out, err
}

func putJSON(b kv.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(k, data)
}

func getJSON(b kv.Bucket, k []byte, v any) (bool, error) {
	data := b.Get(k)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("decode %s: %w", k, err)
	}
	return true, nil
}

func updateContributor(tx kv.Tx, peer string, fn func(*Contributor)) error {
	return updateTx(tx, bucketPeers, peer, func(c *Contributor) {
		c.Peer = peer
		fn(c)
		c.Credits, c.Pending, c.Revoked = round2(c.Credits), round2(c.Pending), round2(c.Revoked)
	})
}

func updateRecord(tx kv.Tx, peer string, fn func(*PeerRecord)) error {
	return updateTx(tx, bucketRecords, peer, fn)
}

// updateTx applies fn to the value of key in bucket (its zero value when
// absent) and stores it.
func updateTx[T any](tx kv.Tx, bucket []byte, key string, fn func(*T)) error {
	b := tx.Bucket(bucket)
	var v T
	if _, err := getJSON(b, []byte(key), &v); err != nil {
		return err
	}
	fn(&v)
	return putJSON(b, []byte(key), v)
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
