package ledger

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/task"
)

// ErrNotFound is returned by Confirm for a task with no receipt.
var ErrNotFound = errors.New("no receipt for this task")

var (
	bucketReceipts = []byte("receipts") // task ID → Entry
	bucketDays     = []byte("days")     // "2006-01-02" → Day
	// bucketPending indexes the pending receipts, oldest first: issue time
	// (8 bytes, big-endian Unix nanoseconds) and task ID → nothing.
	bucketPending = []byte("pending")
	bucketMeta    = []byte("meta")
	keyTotals     = []byte("totals") // Totals (without RecentAverage)
	keyAverage    = []byte("average")
)

// Entry is one stored receipt.
type Entry struct {
	Receipt task.Receipt `json:"receipt"`
	// Raw is the receipt exactly as the storage module signed it.
	Raw       []byte `json:"raw"`
	Confirmed bool   `json:"confirmed"`
	// Revoked is set when the result failed its spot-check.
	Revoked bool      `json:"revoked,omitempty"`
	Added   time.Time `json:"added"`
}

// State returns the entry's credit state: task.CreditPending,
// CreditConfirmed or CreditRevoked.
func (e Entry) State() string {
	switch {
	case e.Revoked:
		return task.CreditRevoked
	case e.Confirmed:
		return task.CreditConfirmed
	}
	return task.CreditPending
}

// Day is one local calendar day's totals (by receipt issue time).
type Day struct {
	Date          string  `json:"date"` // "2006-01-02"
	Receipts      int     `json:"receipts"`
	Confirmed     float64 `json:"confirmed"`
	Pending       float64 `json:"pending"`
	Revoked       float64 `json:"revoked,omitempty"`
	PagesAccepted int64   `json:"pages_accepted"`
	PagesNew      int64   `json:"pages_new"`
	PagesChanged  int64   `json:"pages_changed"`
	Bytes         int64   `json:"bytes"`
}

// Totals are the whole ledger's sums.
type Totals struct {
	Receipts  int     `json:"receipts"`
	Confirmed float64 `json:"confirmed"`
	Pending   float64 `json:"pending"`
	// Revoked is credit whose results failed a spot-check.
	Revoked       float64 `json:"revoked,omitempty"`
	PagesAccepted int64   `json:"pages_accepted"`
	Bytes         int64   `json:"bytes"`
	// RecentAverage is confirmed credit per day, 7-day half-life.
	RecentAverage float64 `json:"recent_average"`
}

// Ledger is the credits ledger. Safe for concurrent use.
type Ledger struct {
	db  *bolt.DB
	loc *time.Location
}

// Open opens (creating if needed) the ledger at path. It fails after a
// second if another process holds the file.
func Open(path string) (*Ledger, error) {
	db, err := boltfile.Open(path, &bolt.Options{Timeout: time.Second}, boltfile.Policy{Name: "credits ledger",
		Advice: "it holds your receipts, so Hivecrawl will not start over it: restore it from a backup, or move it aside to start an empty ledger"})
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketReceipts, bucketDays, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if tx.Bucket(bucketPending) != nil {
			return nil
		}
		// A ledger from before the index: build it once.
		pb, err := tx.CreateBucket(bucketPending)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketReceipts).ForEach(func(k, v []byte) error {
			var e Entry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("receipt %s: %w", k, err)
			}
			if e.State() != task.CreditPending {
				return nil
			}
			return pb.Put(pendingKey(e.Receipt), nil)
		})
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	return &Ledger{db: db, loc: time.Local}, nil
}

// Close closes the file.
func (l *Ledger) Close() error { return l.db.Close() }

// Add stores a receipt, as pending or confirmed. A receipt for a task
// already in the ledger is not counted again: Add returns false (and
// confirms the stored one if this copy is confirmed).
func (l *Ledger) Add(raw []byte, r task.Receipt, confirmed bool, now time.Time) (added bool, err error) {
	if r.TaskID == "" {
		return false, errors.New("add receipt: no task ID")
	}
	if r.Credits < 0 || r.PagesAccepted < 0 || r.Bytes < 0 {
		return false, fmt.Errorf("add receipt for task %s: negative figures", r.TaskID)
	}
	err = l.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReceipts)
		if old := b.Get([]byte(r.TaskID)); old != nil {
			if confirmed {
				return confirmTx(tx, l.loc, r.TaskID)
			}
			return nil
		}
		added = true
		e := Entry{Receipt: r, Raw: raw, Confirmed: confirmed, Added: now}
		if err := putJSON(b, []byte(r.TaskID), e); err != nil {
			return err
		}
		if !confirmed {
			if err := tx.Bucket(bucketPending).Put(pendingKey(r), nil); err != nil {
				return err
			}
		}
		return count(tx, l.loc, r, confirmed, true)
	})
	if err != nil {
		return false, fmt.Errorf("add receipt for task %s: %w", r.TaskID, err)
	}
	return added, nil
}

// Confirm marks a pending receipt confirmed; confirming twice is harmless.
func (l *Ledger) Confirm(taskID string) error {
	err := l.db.Update(func(tx *bolt.Tx) error { return confirmTx(tx, l.loc, taskID) })
	if err != nil {
		return fmt.Errorf("confirm receipt for task %s: %w", taskID, err)
	}
	return nil
}

func confirmTx(tx *bolt.Tx, loc *time.Location, taskID string) error {
	b := tx.Bucket(bucketReceipts)
	var e Entry
	found, err := getJSON(b, []byte(taskID), &e)
	if err != nil {
		return err
	}
	if !found {
		return ErrNotFound
	}
	if e.Confirmed || e.Revoked {
		return nil
	}
	e.Confirmed = true
	if err := putJSON(b, []byte(taskID), e); err != nil {
		return err
	}
	if err := tx.Bucket(bucketPending).Delete(pendingKey(e.Receipt)); err != nil {
		return err
	}
	return count(tx, loc, e.Receipt, true, false)
}

// pendingKey is r's key in bucketPending.
func pendingKey(r task.Receipt) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(r.IssuedAt.UnixNano()))
	return append(k, r.TaskID...)
}

// Settle applies a newer signed copy of a pending receipt (raw, r) whose
// credit the storage module confirmed or revoked. It reports whether the
// entry changed: a receipt not in the ledger, not pending or still pending
// changes nothing.
func (l *Ledger) Settle(raw []byte, r task.Receipt) (changed bool, err error) {
	state := r.Settled()
	if state == task.CreditPending {
		return false, nil
	}
	err = l.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReceipts)
		var e Entry
		found, err := getJSON(b, []byte(r.TaskID), &e)
		if err != nil || !found || e.State() != task.CreditPending {
			return err
		}
		if r.Credits != e.Receipt.Credits {
			return fmt.Errorf("the settled receipt grants %.2f, the pending one %.2f", r.Credits, e.Receipt.Credits)
		}
		changed = true
		if err := tx.Bucket(bucketPending).Delete(pendingKey(e.Receipt)); err != nil {
			return err
		}
		if state == task.CreditConfirmed {
			e.Receipt, e.Raw, e.Confirmed = r, raw, true
			if err := putJSON(b, []byte(r.TaskID), e); err != nil {
				return err
			}
			return count(tx, l.loc, e.Receipt, true, false)
		}
		e.Receipt, e.Raw, e.Revoked = r, raw, true
		if err := putJSON(b, []byte(r.TaskID), e); err != nil {
			return err
		}
		return revoke(tx, l.loc, r)
	})
	if err != nil {
		return false, fmt.Errorf("settle receipt for task %s: %w", r.TaskID, err)
	}
	return changed, nil
}

// revoke moves r's credit from pending to revoked in its day and the
// totals.
func revoke(tx *bolt.Tx, loc *time.Location, r task.Receipt) error {
	return withDay(tx, loc, r, func(d *Day, t *Totals) error {
		d.Pending -= r.Credits
		d.Revoked += r.Credits
		t.Pending -= r.Credits
		t.Revoked += r.Credits
		return nil
	})
}

// withDay applies fn to r's day (by its issue date in loc) and to the
// totals, and stores both.
func withDay(tx *bolt.Tx, loc *time.Location, r task.Receipt, fn func(*Day, *Totals) error) error {
	days, meta := tx.Bucket(bucketDays), tx.Bucket(bucketMeta)
	date := r.IssuedAt.In(loc).Format(time.DateOnly)
	var d Day
	if _, err := getJSON(days, []byte(date), &d); err != nil {
		return err
	}
	var t Totals
	if _, err := getJSON(meta, keyTotals, &t); err != nil {
		return err
	}
	d.Date = date
	if err := fn(&d, &t); err != nil {
		return err
	}
	// Credit comes in hundredths: sums kept to a millionth never carry a
	// float's residue, so credit all moved out of pending leaves exactly 0.
	for _, x := range []*float64{&d.Confirmed, &d.Pending, &d.Revoked, &t.Confirmed, &t.Pending, &t.Revoked} {
		*x = exact(*x)
	}
	if err := putJSON(days, []byte(date), d); err != nil {
		return err
	}
	return putJSON(meta, keyTotals, t)
}

// Pending returns the task IDs of up to limit pending receipts (0 = all),
// oldest first: those whose credit may yet be confirmed or revoked.
func (l *Ledger) Pending(limit int) ([]string, error) {
	ids, _, err := l.PendingAfter(nil, limit)
	return ids, err
}

// PendingAfter is Pending from the receipt after position after (nil: the
// oldest), going round to the oldest at the end, and returns the position
// to go on from. Asked in turns this way, every pending receipt is asked
// about in time, however many the ones that will never settle (a local
// result's, another network's) ahead of it are.
func (l *Ledger) PendingAfter(after []byte, limit int) (ids []string, next []byte, err error) {
	err = l.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketPending).Cursor()
		k, _ := c.First()
		if after != nil {
			if k, _ = c.Seek(after); k != nil && bytes.Equal(k, after) {
				k, _ = c.Next()
			}
		}
		wrapped := after == nil
		for limit <= 0 || len(ids) < limit {
			if k == nil {
				if wrapped {
					break
				}
				wrapped = true
				if k, _ = c.First(); k == nil {
					break
				}
			}
			if after != nil && wrapped && bytes.Compare(k, after) > 0 {
				break // round once
			}
			if len(k) > 8 {
				ids = append(ids, string(k[8:]))
			}
			next = append(next[:0], k...)
			k, _ = c.Next()
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read pending receipts: %w", err)
	}
	return ids, next, nil
}

// exact rounds a sum of credit to a millionth.
func exact(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// count adds r to its day, the totals and (when confirmed) the average. A
// new receipt adds its pages and bytes; a confirmation only moves credit
// from pending to confirmed.
func count(tx *bolt.Tx, loc *time.Location, r task.Receipt, confirmed, isNew bool) error {
	return withDay(tx, loc, r, func(d *Day, t *Totals) error {
		if isNew {
			d.Receipts++
			d.PagesAccepted += int64(r.PagesAccepted)
			d.PagesNew += int64(r.PagesNew)
			d.PagesChanged += int64(r.PagesChanged)
			d.Bytes += r.Bytes
			t.Receipts++
			t.PagesAccepted += int64(r.PagesAccepted)
			t.Bytes += r.Bytes
		} else {
			d.Pending -= r.Credits
			t.Pending -= r.Credits
		}
		if !confirmed {
			d.Pending += r.Credits
			t.Pending += r.Credits
			return nil
		}
		d.Confirmed += r.Credits
		t.Confirmed += r.Credits
		meta := tx.Bucket(bucketMeta)
		var a Average
		if _, err := getJSON(meta, keyAverage, &a); err != nil {
			return err
		}
		a.Add(r.IssuedAt, r.Credits)
		return putJSON(meta, keyAverage, a)
	})
}

// Totals returns the sums and the recent average at now.
func (l *Ledger) Totals(now time.Time) (Totals, error) {
	var t Totals
	var a Average
	err := l.db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if _, err := getJSON(meta, keyTotals, &t); err != nil {
			return err
		}
		_, err := getJSON(meta, keyAverage, &a)
		return err
	})
	if err != nil {
		return Totals{}, fmt.Errorf("read ledger totals: %w", err)
	}
	t.RecentAverage = a.PerDay(now)
	return t, nil
}

// Days returns the totals of the days from first to last (local dates,
// inclusive) that have receipts, oldest first.
func (l *Ledger) Days(first, last time.Time) ([]Day, error) {
	lo := []byte(first.In(l.loc).Format(time.DateOnly))
	hi := last.In(l.loc).Format(time.DateOnly)
	var out []Day
	err := l.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketDays).Cursor()
		for k, v := c.Seek(lo); k != nil && string(k) <= hi; k, v = c.Next() {
			var d Day
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("day %s: %w", k, err)
			}
			out = append(out, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read ledger days: %w", err)
	}
	return out, nil
}

// Entries returns up to limit receipts (0 = all), newest issued first.
func (l *Ledger) Entries(limit int) ([]Entry, error) {
	var out []Entry
	err := l.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketReceipts).ForEach(func(k, v []byte) error {
			var e Entry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("receipt %s: %w", k, err)
			}
			out = append(out, e)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read ledger receipts: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Receipt.IssuedAt.After(out[j].Receipt.IssuedAt) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func getJSON(b *bolt.Bucket, key []byte, v any) (bool, error) {
	data := b.Get(key)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("decode %s: %w", key, err)
	}
	return true, nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	return b.Put(key, data)
}
