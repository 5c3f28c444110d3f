package storage

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
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
	Peer     string    `json:"peer"`
	Nickname string    `json:"nickname,omitempty"`
	Receipts int       `json:"receipts"`
	Credits  float64   `json:"credits"`
	Pages    int64     `json:"pages"`
	Bytes    int64     `json:"bytes"`
	Last     time.Time `json:"last"`
}

// Totals are the storage module's sums.
type Totals struct {
	Uploads    int   `json:"uploads"`
	Duplicates int   `json:"duplicates"`
	Refused    int   `json:"refused"`
	Pages      int64 `json:"pages"`
	Records    int64 `json:"records"`
	Bytes      int64 `json:"bytes"`
}

// indexFile is the index's name in the manager's data directory.
const indexFile = "storage.db"

// index is the storage module's bbolt file.
type index struct{ db *bolt.DB }

// openIndex opens the index at path; readOnly opens that of a stopped
// storage module for reading.
func openIndex(path string, readOnly bool) (*index, error) {
	db, err := boltfile.Open(path, &bolt.Options{Timeout: time.Second, ReadOnly: readOnly}, boltfile.Policy{Name: "storage index",
		Advice: "it holds the receipts and credit of every volunteer: restore it from a backup (the WARC files are not enough to rebuild it)"})
	if err != nil {
		return nil, err
	}
	if readOnly {
		return &index{db: db}, nil
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketURLs, bucketReceipts, bucketPeers, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open storage index %s: %w", path, err)
	}
	return &index{db: db}, nil
}

func (x *index) Close() error { return x.db.Close() }

// receipt returns the receipt stored for a task.
func (x *index) receipt(taskID string) (stored, bool, error) {
	var s stored
	var found bool
	err := x.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReceipts)
		if b == nil {
			return nil // a file the storage module never opened for writing
		}
		var err error
		found, err = getJSON(b, []byte(taskID), &s)
		return err
	})
	return s, found, err
}

// verifiedReceipt returns the receipt stored for a task, verified with key.
func (x *index) verifiedReceipt(taskID string, key crypto.PubKey) (task.Receipt, bool, error) {
	s, found, err := x.receipt(taskID)
	if err != nil || !found {
		return task.Receipt{}, false, err
	}
	r, err := VerifyReceipt(s.Raw, key)
	if err != nil {
		return task.Receipt{}, false, fmt.Errorf("receipt of task %s: %w", taskID, err)
	}
	return r, true, nil
}

// entries returns the index entries of urls (missing ones are absent).
func (x *index) entries(urls []string) (map[string]Entry, error) {
	out := make(map[string]Entry, len(urls))
	err := x.db.View(func(tx *bolt.Tx) error {
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

// commit stores an accepted upload: its index entries, its receipt and the
// contributor's and global totals, in one transaction.
func (x *index) commit(entries map[string]Entry, r task.Receipt, raw []byte, nickname string, records int) error {
	return x.db.Update(func(tx *bolt.Tx) error {
		urls := tx.Bucket(bucketURLs)
		for u, e := range entries {
			if err := putJSON(urls, []byte(u), e); err != nil {
				return err
			}
		}
		if err := putJSON(tx.Bucket(bucketReceipts), []byte(r.TaskID), stored{Peer: r.Peer, Raw: raw}); err != nil {
			return err
		}
		peers := tx.Bucket(bucketPeers)
		var c Contributor
		if _, err := getJSON(peers, []byte(r.Peer), &c); err != nil {
			return err
		}
		c.Peer = r.Peer
		if nickname != "" {
			c.Nickname = nickname
		}
		c.Receipts++
		c.Credits += r.Credits
		c.Pages += int64(r.PagesAccepted)
		c.Bytes += r.Bytes
		c.Last = r.IssuedAt
		if err := putJSON(peers, []byte(r.Peer), c); err != nil {
			return err
		}
		return x.addTotalsTx(tx, func(t *Totals) {
			t.Uploads++
			t.Pages += int64(r.PagesAccepted)
			t.Records += int64(records)
			t.Bytes += r.Bytes
		})
	})
}

func (x *index) count(fn func(*Totals)) error {
	return x.db.Update(func(tx *bolt.Tx) error { return x.addTotalsTx(tx, fn) })
}

func (x *index) addTotalsTx(tx *bolt.Tx, fn func(*Totals)) error {
	meta := tx.Bucket(bucketMeta)
	var t Totals
	if _, err := getJSON(meta, keyTotals, &t); err != nil {
		return err
	}
	fn(&t)
	return putJSON(meta, keyTotals, t)
}

func (x *index) totals() (Totals, error) {
	var t Totals
	err := x.db.View(func(tx *bolt.Tx) error {
		_, err := getJSON(tx.Bucket(bucketMeta), keyTotals, &t)
		return err
	})
	return t, err
}

func (x *index) contributors() ([]Contributor, error) {
	var out []Contributor
	err := x.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPeers).ForEach(func(k, v []byte) error {
			var c Contributor
			if err := json.Unmarshal(v, &c); err != nil {
				return fmt.Errorf("contributor %s: %w", k, err)
			}
			out = append(out, c)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Credits != out[j].Credits {
			return out[i].Credits > out[j].Credits
		}
		return out[i].Peer < out[j].Peer
	})
	return out, err
}

func (x *index) entry(u string) (Entry, bool, error) {
	var e Entry
	var found bool
	err := x.db.View(func(tx *bolt.Tx) error {
		var err error
		found, err = getJSON(tx.Bucket(bucketURLs), []byte(u), &e)
		return err
	})
	return e, found, err
}

func putJSON(b *bolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(k, data)
}

func getJSON(b *bolt.Bucket, k []byte, v any) (bool, error) {
	data := b.Get(k)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("decode %s: %w", k, err)
	}
	return true, nil
}
