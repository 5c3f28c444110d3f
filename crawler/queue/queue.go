package queue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

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
