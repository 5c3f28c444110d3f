package queue

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
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
