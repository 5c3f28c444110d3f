package queue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/task"
)

// DefaultMaxLen is the default maximum number of waiting tasks (paper 000's
// experiments use 5).
const DefaultMaxLen = 5

var (
	tasksBucket = []byte("tasks") // task ID → Record (JSON)
	fifoBucket  = []byte("fifo")  // Seq (8 bytes, big endian) → task ID, queued tasks only
	metaBucket  = []byte("meta")  // openKey
	// openKey is present while a process has the queue open: finding it at
	// Open means the last process crashed or was killed.
	openKey = []byte("open")
)

// Reach is what a crash left of a running task's crawl.
type Reach struct {
	Pages int  // pages crawled
	Dying bool // the process died while processing a page
	// Written is when the crawl last wrote; a death with the same time was
	// counted already (a process that died before starting the task again
	// leaves the last one's state).
	Written time.Time
}

// MinCrashLife is how long a task must have run before a death while
// processing one of its pages counts against it.
const MinCrashLife = time.Second

// DefaultMaxCrashes is how many crashes in a row a task may cause before it
// is set aside.
const DefaultMaxCrashes = 3

// Options configure a Queue. Zero values take the defaults noted.
type Options struct {
	// MaxLen is the maximum number of queued (waiting) tasks; running and
	// finished tasks do not count. Default DefaultMaxLen.
	MaxLen int
	// LockTimeout bounds the wait for another process's lock on the file.
	// Default 1s.
	LockTimeout time.Duration
	// ReadOnly opens the file for inspection (tools, tests): running tasks
	// stay as they are and every change fails. A damaged file is refused.
	ReadOnly bool
	// MaxCrashes is how many times in a row the process may stop without
	// closing the queue while a task runs, getting no further in it each
	// time, before the task is set aside rather than run again. Default
	// DefaultMaxCrashes.
	MaxCrashes int
	// Reached tells what a crash left of a task that was running (see
	// Reach). A crash counts only when the process died processing a page
	// no further in the task than at its last crash; a kill at a random
	// moment tells nothing, and getting further starts the count again.
	// nil = every crash counts.
	Reached func(*Record) Reach
	// Now is the clock; nil = time.Now.
	Now func() time.Time
	// Logger gets the one line about a damaged file moved aside, and one per
	// task set aside; nil = slog.Default().
	Logger *slog.Logger
}

// Queue is the task queue in one bbolt file.
type Queue struct {
	db       *bolt.DB
	path     string
	opts     Options
	readOnly bool
	maxLen   atomic.Int64
}

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

// recover creates the buckets, checks every record decodes, and returns
// running tasks to the queue, counting a crash against each when the last
// process did not close the queue, and offered ones to their places.
func (q *Queue) recover() error {
	now := q.opts.Now()
	var aside []*Record
	err := q.db.Update(func(tx *bolt.Tx) error {
		aside = nil
		tasks, err := tx.CreateBucketIfNotExists(tasksBucket)
		if err != nil {
			return err
		}
		fifo, err := tx.CreateBucketIfNotExists(fifoBucket)
		if err != nil {
			return err
		}
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		crashed := meta.Get(openKey) != nil
		var requeue []*Record
		err = tasks.ForEach(func(k, v []byte) error {
			r, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			switch r.State {
			case Running:
				requeue = append(requeue, r)
			case Offered:
				// Offered to a neighbour when the process ended: the
				// neighbour may have taken it too, and then only one
				// copy can claim the host's lease.
				r.State = Queued
				if err := put(tasks, r); err != nil {
					return err
				}
				return fifo.Put(seqKey(r.Seq), []byte(r.ID))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range requeue {
			if crashed {
				r.Crashes = q.crashes(r)
			}
			if r.Crashes >= q.opts.MaxCrashes {
				r.State, r.Finished = SetAside, now
				r.Reason = fmt.Sprintf("set aside: Hivecrawl stopped unexpectedly %d times in a row while crawling this task", r.Crashes)
				aside = append(aside, r)
				if err := put(tasks, r); err != nil {
					return err
				}
				continue
			}
			r.State, r.Started = Queued, time.Time{}
			if err := put(tasks, r); err != nil {
				return err
			}
			if err := fifo.Put(seqKey(r.Seq), []byte(r.ID)); err != nil {
				return err
			}
		}
		return meta.Put(openKey, []byte(now.UTC().Format(time.RFC3339Nano)))
	})
	if err != nil {
		return fmt.Errorf("open task queue %s: %w", q.path, err)
	}
	for _, r := range aside {
		logger(q.opts).Warn("Task set aside after crashes", "task", r.ID, "channel", r.Task.Channel, "crashes", r.Crashes, "reason", r.Reason)
	}
	return nil
}

// crashes returns r's crash count after a crash while it ran, updating
// its reach (see Options.Reached).
func (q *Queue) crashes(r *Record) int {
	if q.opts.Reached == nil {
		return r.Crashes + 1
	}
	at := q.opts.Reached(r)
	if at.Dying && at.Written.Sub(r.Started) < MinCrashLife {
		// Killed within a moment of starting the task: that says nothing
		// of the page (and a page is not processed that soon anyway: the
		// politeness wait comes after robots.txt).
		at.Dying = false
	}
	if !at.Dying || at.Written.Equal(r.DiedAt) {
		if at.Pages > r.Reach {
			r.Reach = at.Pages
			return 0 // further than ever
		}
		return r.Crashes // a kill at a random moment, or a death counted
	}
	r.DiedAt = at.Written
	if at.Pages > r.Reach {
		r.Reach = at.Pages
		return 1 // died at a new place
	}
	return r.Crashes + 1 // died again, no further
}

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

// MaxLen returns the maximum number of waiting tasks.
func (q *Queue) MaxLen() int { return int(q.maxLen.Load()) }

// SetMaxLen changes the maximum number of waiting tasks (n ≤ 0: the
// default). Tasks already queued beyond a lowered maximum stay.
func (q *Queue) SetMaxLen(n int) {
	if n <= 0 {
		n = DefaultMaxLen
	}
	q.maxLen.Store(int64(n))
}

// Enqueue appends a task at the tail of the queue. raw and proof (what
// shows the task's lease may be claimed here) are stored as given; t is
// raw's decoded form and must be valid. It returns ErrFull when MaxLen
// tasks are waiting and ErrDuplicate when t.ID is already known. Two
// exceptions:
//   - A task still waiting under an earlier lease epoch: the manager sent
//     it again under the host's next lease, which the waiting copy could
//     never claim, so the new copy takes its place in the queue.
//   - A task that left for a neighbour (HandedOver) and comes back under
//     the same lease or a later one: it is not here any more, so it waits
//     again, in its old place. It comes back when the neighbour it was
//     shared with leaves and this peer takes its zone, or when the manager
//     sends it again.
func (q *Queue) Enqueue(raw, proof []byte, t *task.Task, now time.Time) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("enqueue task: %w", err)
	}
	err := q.db.Update(func(tx *bolt.Tx) error {
		tasks, fifo := tx.Bucket(tasksBucket), tx.Bucket(fifoBucket)
		r := &Record{ID: t.ID, Raw: raw, Proof: proof, Task: t, State: Queued, Enqueued: now}
		old, err := get(tasks, []byte(t.ID))
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return err
		case old.State == Queued && old.Task.Lease.Epoch < t.Lease.Epoch:
			old.Raw, old.Proof, old.Task = raw, proof, t
			return put(tasks, old)
		case old.State == HandedOver && old.Task.Lease.Epoch <= t.Lease.Epoch:
			// Whatever this peer did with it before is not what the
			// neighbour did: it starts afresh, in its old place.
			r.Seq, r.Enqueued = old.Seq, old.Enqueued
		default:
			return ErrDuplicate
		}
		if count(fifo) >= q.MaxLen() {
			return ErrFull
		}
		if r.Seq == 0 { // bbolt's sequences start at 1
			if r.Seq, err = fifo.NextSequence(); err != nil {
				return err
			}
		}
		if err := put(tasks, r); err != nil {
			return err
		}
		return fifo.Put(seqKey(r.Seq), []byte(r.ID))
	})
	if err != nil {
		return fmt.Errorf("enqueue task %s: %w", t.ID, err)
	}
	return nil
}

// Next takes the first queued task that may start and marks it running:
// may (nil: any) is asked of each in queue order, and those it turns down
// keep their place. Tasks that waited longer than their recrawl interval
// are cancelled with ReasonExpired on the way and returned as expired.
// next is nil when no task may start.
func (q *Queue) Next(now time.Time, may func(*Record) bool) (next *Record, expired []*Record, err error) {
	// An idle client asks every few seconds: an empty queue is answered
	// from a read, without a write transaction's sync to disk.
	var empty bool
	if err := q.db.View(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(fifoBucket).Cursor().First()
		empty = k == nil
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("take next task: %w", err)
	}
	if empty {
		return nil, nil, nil
	}
	err = q.db.Update(func(tx *bolt.Tx) error {
		next, expired = nil, nil
		tasks, fifo := tx.Bucket(tasksBucket), tx.Bucket(fifoBucket)
		var skipped [][]byte
		c := fifo.Cursor()
		for k, id := c.First(); k != nil; k, id = c.Next() {
			r, err := get(tasks, id)
			if err != nil {
				return err
			}
			if r.expired(now) {
				skipped = append(skipped, k)
				r.State, r.Reason, r.Finished = Cancelled, ReasonExpired, now
				if err := put(tasks, r); err != nil {
					return err
				}
				expired = append(expired, r)
				continue
			}
			if may != nil && !may(r) {
				continue
			}
			skipped = append(skipped, k)
			r.State, r.Started = Running, now
			r.Attempts++
			next = r
			if err := put(tasks, r); err != nil {
				return err
			}
			break
		}
		// Deleting while iterating would skip keys: delete after.
		for _, k := range skipped {
			if err := fifo.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("take next task: %w", err)
	}
	return next, expired, nil
}

// Requeue returns running task id to the tail of the queue, for a task
// that could not start yet (its host's lease is held elsewhere, or the
// manager did not answer). It is not counted against MaxLen's refusals.
func (q *Queue) Requeue(id string) error {
	err := q.db.Update(func(tx *bolt.Tx) error {
		fifo := tx.Bucket(fifoBucket)
		return modify(tx, id, func(r *Record) error {
			if r.State != Running {
				return ErrState
			}
			seq, err := fifo.NextSequence()
			if err != nil {
				return err
			}
			r.State, r.Started, r.Seq = Queued, time.Time{}, seq
			return fifo.Put(seqKey(seq), []byte(r.ID))
		})
	})
	if err != nil {
		return fmt.Errorf("requeue task %s: %w", id, err)
	}
	return nil
}

// Finish records a running task's result. The spool file at spool must
// already be complete and synced; its upload becomes pending.
func (q *Queue) Finish(id string, res *task.Result, spool string, now time.Time) error {
	return q.change(id, "finish", func(r *Record) error {
		if r.State != Running {
			return ErrState
		}
		r.State, r.Finished, r.Result, r.Spool, r.Upload = Done, now, res, spool, UploadPending
		r.Progress = nil
		return nil
	})
}

// SaveProgress stores a running task's checkpoint, replacing the last one.
// Progress is made, so the task's crash count starts again: only crashes
// in a row without progress set a task aside.
func (q *Queue) SaveProgress(id string, progress []byte) error {
	return q.change(id, "save progress of", func(r *Record) error {
		if r.State != Running {
			return ErrState
		}
		r.Progress, r.Crashes = progress, 0
		return nil
	})
}

// Cancel ends a queued or running task with reason (a failed crawl, an
// expired wait).
func (q *Queue) Cancel(id, reason string, now time.Time) error {
	return q.db.Update(func(tx *bolt.Tx) error {
		err := modify(tx, id, func(r *Record) error {
			if r.State != Running && r.State != Queued {
				return ErrState
			}
			if r.State == Queued {
				if err := tx.Bucket(fifoBucket).Delete(seqKey(r.Seq)); err != nil {
					return err
				}
			}
			r.State, r.Reason, r.Finished, r.Progress = Cancelled, reason, now, nil
			return nil
		})
		if err != nil {
			return fmt.Errorf("cancel task %s: %w", id, err)
		}
		return nil
	})
}

// Delivered records the receipt of a done task's uploaded result.
func (q *Queue) Delivered(id string, receipt []byte) error {
	return q.change(id, "record delivery of", func(r *Record) error {
		if r.State != Done || r.Upload != UploadPending {
			return ErrState
		}
		r.Upload, r.Receipt = UploadDelivered, receipt
		return nil
	})
}

// Recorded marks a delivered task's receipt as kept by the ledger and its
// spool as deleted; nothing is left to do for the task. The raw bytes and
// the task's digest lists and filter (up to ~400 kB each) are dropped, since the record
// is only kept to refuse duplicates and show history.
func (q *Queue) Recorded(id string) error {
	return q.change(id, "record receipt of", func(r *Record) error {
		if r.State != Done || r.Upload != UploadDelivered {
			return ErrState
		}
		r.Upload, r.Spool, r.Raw = UploadRecorded, "", nil
		r.Task.KnownPages, r.Task.KnownInterSite, r.Task.Validators = nil, nil, nil
		r.Task.KnownFilter = nil
		return nil
	})
}

// Handover marks every queued and running task as handed over and returns
// the running ones and the queued ones (in queue order) for a graceful
// leave: the overlay passes their raw bytes to the peer taking over the
// zone.
func (q *Queue) Handover(now time.Time) (running, queued []*Record, err error) {
	err = q.db.Update(func(tx *bolt.Tx) error {
		running, queued = nil, nil
		tasks, fifo := tx.Bucket(tasksBucket), tx.Bucket(fifoBucket)
		c := fifo.Cursor()
		for k, id := c.First(); k != nil; k, id = c.First() {
			r, err := get(tasks, id)
			if err != nil {
				return err
			}
			if err := c.Delete(); err != nil {
				return err
			}
			queued = append(queued, r)
		}
		err := tasks.ForEach(func(k, v []byte) error {
			r, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			if r.State == Running {
				running = append(running, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range append(append([]*Record(nil), running...), queued...) {
			r.State, r.Reason, r.Finished = HandedOver, "", now
			if err := put(tasks, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("hand over tasks: %w", err)
	}
	return running, queued, nil
}

// Offer takes the waiting task that would start last among those pick
// (nil: any) accepts out of the queue, to hand it to a neighbour with a
// crawl thread idle, and marks it Offered; nil when there is none. The
// task goes back to its place with Unoffer, or leaves for good with
// Shared; a process that ends in between puts it back at the next Open.
func (q *Queue) Offer(now time.Time, pick func(*Record) bool) (*Record, error) {
	var offered *Record
	err := q.db.Update(func(tx *bolt.Tx) error {
		offered = nil
		tasks, fifo := tx.Bucket(tasksBucket), tx.Bucket(fifoBucket)
		c := fifo.Cursor()
		for k, id := c.Last(); k != nil; k, id = c.Prev() {
			r, err := get(tasks, id)
			if err != nil {
				return err
			}
			if r.expired(now) || (pick != nil && !pick(r)) {
				continue // Next cancels the expired ones
			}
			if err := fifo.Delete(k); err != nil {
				return err
			}
			r.State = Offered
			offered = r
			return put(tasks, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("offer a queued task: %w", err)
	}
	return offered, nil
}

// Unoffer returns offered task id to its place in the queue: the
// neighbour did not take it.
func (q *Queue) Unoffer(id string) error {
	err := q.db.Update(func(tx *bolt.Tx) error {
		return modify(tx, id, func(r *Record) error {
			if r.State != Offered {
				return ErrState
			}
			r.State = Queued
			return tx.Bucket(fifoBucket).Put(seqKey(r.Seq), []byte(r.ID))
		})
	})
	if err != nil {
		return fmt.Errorf("return offered task %s: %w", id, err)
	}
	return nil
}

// Shared records that a neighbour took offered task id.
func (q *Queue) Shared(id string, now time.Time) error {
	return q.change(id, "record the sharing of", func(r *Record) error {
		if r.State != Offered {
			return ErrState
		}
		r.State, r.Reason, r.Finished = HandedOver, ReasonShared, now
		return nil
	})
}

// change applies fn to task id in one transaction.
func (q *Queue) change(id, what string, fn func(*Record) error) error {
	err := q.db.Update(func(tx *bolt.Tx) error { return modify(tx, id, fn) })
	if err != nil {
		return fmt.Errorf("%s task %s: %w", what, id, err)
	}
	return nil
}

func modify(tx *bolt.Tx, id string, fn func(*Record) error) error {
	tasks := tx.Bucket(tasksBucket)
	r, err := get(tasks, []byte(id))
	if err != nil {
		return err
	}
	if err := fn(r); err != nil {
		return err
	}
	return put(tasks, r)
}

func get(tasks *bolt.Bucket, id []byte) (*Record, error) {
	v := tasks.Get(id)
	if v == nil {
		return nil, ErrNotFound
	}
	return decodeRecord(id, v)
}

func put(tasks *bolt.Bucket, r *Record) error {
	b, err := encodeRecord(r)
	if err != nil {
		return err
	}
	return tasks.Put([]byte(r.ID), b)
}

func seqKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, seq)
}

// count counts a bucket's keys with a cursor, which, unlike Stats, also sees
// changes made earlier in the same write transaction.
func count(b *bolt.Bucket) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}
