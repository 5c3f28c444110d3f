package queue

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

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

// Offer takes the waiting task that rank ranks highest among those it
// accepts (nil: any, all alike), ties to the one that would start last,
// out of the queue, to hand it to a neighbour with a crawl thread idle,
// and marks it Offered; nil when there is none. The task goes back to
// its place with Unoffer, or leaves for good with Shared; a process that
// ends in between puts it back at the next Open.
func (q *Queue) Offer(now time.Time, rank func(*Record) (float64, bool)) (*Record, error) {
	var offered *Record
	err := q.db.Update(func(tx *bolt.Tx) error {
		offered = nil
		tasks, fifo := tx.Bucket(tasksBucket), tx.Bucket(fifoBucket)
		var (
			key  []byte
			best float64
		)
		c := fifo.Cursor()
		for k, id := c.Last(); k != nil; k, id = c.Prev() {
			r, err := get(tasks, id)
			if err != nil {
				return err
			}
			if r.expired(now) {
				continue // Next cancels the expired ones
			}
			v, ok := 0.0, true
			if rank != nil {
				v, ok = rank(r)
			}
			if ok && (offered == nil || v > best) {
				offered, best, key = r, v, k // valid for the transaction
			}
		}
		if offered == nil {
			return nil
		}
		if err := fifo.Delete(key); err != nil {
			return err
		}
		offered.State = Offered
		return put(tasks, offered)
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
