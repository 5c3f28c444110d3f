package queue

import (
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Get returns the task with the given ID.
func (q *Queue) Get(id string) (*Record, error) {
	var r *Record
	err := q.db.View(func(tx *bolt.Tx) error {
		var err error
		r, err = get(tx.Bucket(tasksBucket), []byte(id))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get task %s: %w", id, err)
	}
	return r, nil
}

// Waiting returns the queued tasks in queue order.
func (q *Queue) Waiting() ([]*Record, error) {
	var out []*Record
	err := q.db.View(func(tx *bolt.Tx) error {
		tasks := tx.Bucket(tasksBucket)
		return tx.Bucket(fifoBucket).ForEach(func(_, id []byte) error {
			r, err := get(tasks, id)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list queued tasks: %w", err)
	}
	return out, nil
}

// SetAside returns the tasks set aside after crashes, most recent first.
func (q *Queue) SetAside() ([]*Record, error) {
	var out []*Record
	err := q.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(tasksBucket).ForEach(func(k, v []byte) error {
			r, err := decodeRecord(k, v)
			if err == nil && r.State == SetAside {
				out = append(out, r)
			}
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list tasks set aside: %w", err)
	}
	slices.SortFunc(out, func(a, b *Record) int { return b.Finished.Compare(a.Finished) })
	return out, nil
}

// Len returns the number of queued tasks.
func (q *Queue) Len() (int, error) {
	var n int
	err := q.db.View(func(tx *bolt.Tx) error {
		n = count(tx.Bucket(fifoBucket))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count queued tasks: %w", err)
	}
	return n, nil
}

// Select returns every task for which keep returns true, in ID order.
func (q *Queue) Select(keep func(*Record) bool) ([]*Record, error) {
	var out []*Record
	err := q.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(tasksBucket).ForEach(func(k, v []byte) error {
			r, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			if keep(r) {
				out = append(out, r)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	return out, nil
}

// Uploads returns the done tasks whose upload is pending or whose receipt
// is not yet recorded: the work to resume after a restart.
func (q *Queue) Uploads() ([]*Record, error) {
	return q.Select(func(r *Record) bool {
		return r.State == Done && (r.Upload == UploadPending || r.Upload == UploadDelivered)
	})
}

// Prune deletes tasks with nothing left to do (cancelled, set aside, handed
// over, or done with the receipt recorded) that ended before before. Their IDs are
// forgotten, so a task with the same ID is accepted again afterwards.
func (q *Queue) Prune(before time.Time) (int, error) {
	n := 0
	err := q.db.Update(func(tx *bolt.Tx) error {
		n = 0
		tasks := tx.Bucket(tasksBucket)
		var drop [][]byte
		err := tasks.ForEach(func(k, v []byte) error {
			r, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			ended := r.State == Cancelled || r.State == SetAside || r.State == HandedOver || (r.State == Done && r.Upload == UploadRecorded)
			if ended && r.Finished.Before(before) {
				drop = append(drop, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range drop {
			if err := tasks.Delete(k); err != nil {
				return err
			}
		}
		n = len(drop)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune tasks: %w", err)
	}
	return n, nil
}
