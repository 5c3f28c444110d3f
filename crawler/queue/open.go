package queue

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
)

// Open opens or creates the queue file at path and returns tasks that were
// running when the last process stopped to the queue. When that process
// did not Close the queue (it crashed or was killed), each such task whose
// run died processing a page no further than at its last crash
// (opts.Reached) counts a crash, and a task at opts.MaxCrashes crashes in
// a row is set aside instead, with one log line: a page that kills the
// client is not fetched forever.
//
// A damaged file (see internal/boltfile) or one with a record that does
// not decode is moved aside as queue.db.broken-TIME, with one log line, and
// the queue starts empty: its tasks come back from the manager, which
// reassigns what is not reported. Opened ReadOnly, a damaged file is an
// error wrapping ErrCorrupt.
func Open(path string, opts Options) (*Queue, error) {
	q, err := open(path, opts)
	if opts.ReadOnly || !errors.Is(err, ErrCorrupt) || errors.Is(err, boltfile.ErrDamaged) {
		return q, err // boltfile moved a damaged file aside itself
	}
	aside, merr := boltfile.MoveAsidePath(path, time.Now())
	if merr != nil {
		return nil, fmt.Errorf("%w, and moving it aside failed: %v", err, merr)
	}
	logger(opts).Warn("Damaged task queue moved aside; starting with an empty one", "file", path, "moved_to", aside, "problem", err.Error())
	return open(path, opts)
}

func logger(opts Options) *slog.Logger {
	if opts.Logger == nil {
		return slog.Default()
	}
	return opts.Logger
}

func open(path string, opts Options) (*Queue, error) {
	if opts.MaxLen <= 0 {
		opts.MaxLen = DefaultMaxLen
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	if opts.MaxCrashes <= 0 {
		opts.MaxCrashes = DefaultMaxCrashes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	db, err := openDB(path, opts)
	if err != nil {
		return nil, err
	}
	q := &Queue{db: db, path: path, opts: opts, readOnly: opts.ReadOnly}
	q.maxLen.Store(int64(opts.MaxLen))
	check := q.recover
	if opts.ReadOnly {
		check = q.check
	}
	if err := check(); err != nil {
		db.Close()
		return nil, err
	}
	return q, nil
}

// openDB opens the bbolt file; a damaged one is moved aside unless
// opts.ReadOnly.
func openDB(path string, opts Options) (*bolt.DB, error) {
	if opts.ReadOnly {
		// bbolt would create a missing file; inspection wants an error.
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("open task queue %s: %w", path, err)
		}
	}
	p := boltfile.Policy{Name: "task queue", OnDamage: boltfile.MoveAside, Logger: logger(opts),
		Advice: "move the file aside to start with an empty queue"}
	db, err := boltfile.Open(path, &bolt.Options{Timeout: opts.LockTimeout, ReadOnly: opts.ReadOnly}, p)
	if errors.Is(err, boltfile.ErrDamaged) {
		return nil, corruptError{err}
	}
	return db, err
}

// corruptError is a file boltfile refused: its message, and both
// boltfile.ErrDamaged and ErrCorrupt.
type corruptError struct{ err error }

func (e corruptError) Error() string   { return e.err.Error() }
func (e corruptError) Unwrap() []error { return []error{e.err, ErrCorrupt} }

// check verifies a read-only file: both buckets exist and every record
// decodes.
func (q *Queue) check() error {
	err := q.db.View(func(tx *bolt.Tx) error {
		tasks, fifo := tx.Bucket(tasksBucket), tx.Bucket(fifoBucket)
		if tasks == nil || fifo == nil {
			return fmt.Errorf("%w: not a task queue (buckets missing)", ErrCorrupt)
		}
		return tasks.ForEach(func(k, v []byte) error {
			_, err := decodeRecord(k, v)
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("open task queue %s: %w", q.path, err)
	}
	return nil
}

// Close marks the queue closed cleanly, so tasks left running (a graceful
// stop interrupted them) are not counted as crashes at the next Open, and
// closes the file. It waits for transactions in progress, which are short.
func (q *Queue) Close() error {
	var merr error
	if !q.readOnly {
		merr = q.db.Update(func(tx *bolt.Tx) error {
			if meta := tx.Bucket(metaBucket); meta != nil {
				return meta.Delete(openKey)
			}
			return nil
		})
	}
	if err := q.db.Close(); err != nil {
		return fmt.Errorf("close task queue %s: %w", q.path, err)
	}
	if merr != nil {
		return fmt.Errorf("close task queue %s: mark it closed: %w", q.path, merr)
	}
	return nil
}
