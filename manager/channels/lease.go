package channels

import (
	"errors"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Host leases (design.md §8). The channel database is the one authority on who
// may crawl a web host: it grants at most one lease per host that can still
// be live, and a crawler must claim its task's lease here before it sends
// the host a request. The overlay may briefly hold a task twice (a zone
// overlap, a replay, an uncertain handover); the claim makes only one copy
// run. Every decision is taken inside one bbolt transaction and persisted
// before it is answered, so it survives a manager restart.
//
// A lease is live, as the manager counts it, until
//   - the task's StartBy plus the clock skew allowance, while no crawler
//     holds it (unclaimed, or released by a leaving holder for its heir);
//   - its Expires plus the skew allowance, while a crawler holds it;
//   - the moment a result or a cancellation ends the task.
// A crawler stops before Expires by its own clock; the skew allowance
// covers a crawler clock that runs behind the manager's by less than it.

// Lease errors callers branch on.
var (
	// ErrLeaseHeld: another crawler holds the host's lease now; a claim may
	// succeed later (the holder may release it, or lapse).
	ErrLeaseHeld = errors.New("the host's lease is held by another crawler")

	// ErrLeaseOver: the task's lease can no longer be claimed or renewed
	// (the task ended, a later epoch exists, it was not started in time,
	// or another crawler holds it): the crawler must stop or drop it.
	ErrLeaseOver = errors.New("the task's lease is over")
)

// HeldError is a claim held by a wait whose end the manager knows (the
// politeness wait after a release, the IP wait): the claimer may try
// again in RetryIn rather than at its own pace, and so start before its
// task's start-by. It wraps ErrLeaseHeld.
type HeldError struct {
	Why string
	// RetryIn is how long until the wait has passed; 0 when unknown.
	RetryIn time.Duration
}

func (e *HeldError) Error() string { return ErrLeaseHeld.Error() + ": " + e.Why }

func (e *HeldError) Unwrap() error { return ErrLeaseHeld }

// LeaseTimes are the operator's lease settings.
type LeaseTimes struct {
	// Hold is how long a claim or renewal keeps the lease.
	Hold time.Duration
	// StartWithin is how long after the grant the task may be started.
	StartWithin time.Duration
	// Skew is the allowance for crawler clocks behind the manager's.
	Skew time.Duration
	// Gap is the politeness wait: a new lease is granted no sooner than
	// this after the last one ended, so a second crawler's first request
	// keeps the wait after the first crawler's last.
	Gap time.Duration
	// Limits cap the leases at once per address and per registrable
	// domain; the zero Limits caps nothing.
	Limits Limits
}

// mayBeLive reports whether task t's lease may still be live at now: it was
// granted, the task may be in the overlay or running (being sent, sent,
// or claimed: a claim proves delivery, whatever the send was told), and
// its time has not run out.
func (t *Task) mayBeLive(now time.Time, skew time.Duration) bool {
	return t.delivered() && now.Before(t.liveUntil(skew))
}

// delivered reports whether granted task t may be in the overlay or
// running: being sent, sent, or claimed.
func (t *Task) delivered() bool {
	return t.Epoch > 0 && (t.Sent || t.Sending || t.Holder != "")
}

// liveUntil is when task t's lease stops counting as possibly live.
func (t *Task) liveUntil(skew time.Duration) time.Time {
	if t.Epoch == 0 {
		return time.Time{}
	}
	if t.Holder != "" && !t.Released {
		return t.Expires.Add(skew)
	}
	return t.StartBy.Add(skew)
}

// Grant gives open task id the next lease on its host when no other lease
// on the host can still be live, and returns the updated record. ok is
// false when the host is busy; the task then waits. A task granted before
// but never sent (the manager stopped in between, or its send failed) is
// granted afresh; one being sent is not grantable (another manager sharing
// the database may be sending it), nor one a crawler claimed whose lease
// may be live: a send can fail after it was delivered (an answer lost on
// the way back, a peer that took it and then refused a retry as seen).
func (d *DB) Grant(id string, now time.Time, lt LeaseTimes) (t Task, ok bool, err error) {
	return d.grant(id, now, lt, false)
}

// Regrant is Grant for a task whose sending a stop of its manager cut
// short: unless a crawler has claimed it, it is granted afresh, and the
// new epoch fences out any copy the overlay may hold (its claim is
// refused, ErrLeaseOver), so the task can be sent again without a second
// crawler on its host. A claimed task is not grantable: it was delivered.
func (d *DB) Regrant(id string, now time.Time, lt LeaseTimes) (t Task, ok bool, err error) {
	return d.grant(id, now, lt, true)
}

func (d *DB) grant(id string, now time.Time, lt LeaseTimes, cutShort bool) (t Task, ok bool, err error) {
	var optedOut error
	err = d.db.Update(func(tx kv.Tx) error {
		t, ok, optedOut = Task{}, false, nil // a run again starts afresh (kv.Store.Update)
		tb, hb := tx.Bucket(bucketTasks), tx.Bucket(bucketHosts)
		found, err := getJSON(tb, []byte(id), &t)
		if err != nil {
			return err
		}
		if !found {
			return ErrNotFound
		}
		sending := t.Sending && !(cutShort && t.Holder == "")
		claimed := t.Holder != "" && t.mayBeLive(now, lt.Skew)
		if t.State != TaskOpen || t.Sent || sending || claimed || t.Host == "" {
			return fmt.Errorf("%w: task is %s, sent %v, claimed by %q", ErrNotGrantable, t.State, t.Sent || t.Sending, t.Holder)
		}
		if err := optedOutErr(tx, t.Host); err != nil {
			if !errors.Is(err, ErrOptedOut) {
				return err
			}
			// Issued before the opt-out reached this task (another
			// manager's round, a spot-check): ended, never sent.
			optedOut = err
			if _, err := endTx(channelsIn(tx), tb, t, TaskCancelled, ReasonOptedOut, now); err != nil {
				return err
			}
			return endLeaseTx(tx, &t, now)
		}
		var hl hostLease
		if _, err := getJSON(hb, []byte(t.Host), &hl); err != nil {
			return err
		}
		gap := max(lt.Gap, hl.Wait)
		if hl.Task != "" && hl.Task != id {
			var prev Task
			found, err := getJSON(tb, []byte(hl.Task), &prev)
			if err != nil {
				return err
			}
			if found && prev.State == TaskOpen && prev.mayBeLive(now.Add(-gap), lt.Skew) {
				return nil // busy: its lease may be live
			}
		}
		if now.Before(hl.Ended.Add(gap)) || now.Before(hl.Rest) {
			return nil // the last crawler's last request was too recent, or the host rests
		}
		if lt.Limits.active() {
			why, _, err := limitsTx(tx, &t, hl.addrsOf(now), now, lt, granted(now, lt.Skew), false)
			if err != nil || why != "" {
				return err // its address or domain is at its cap: the task waits
			}
		}
		hl.Epoch++
		hl.Task = id
		t.Epoch, t.StartBy = hl.Epoch, now.Add(lt.StartWithin)
		t.Holder, t.Expires, t.Released, t.ReleasedAt, t.ReleaseWait, t.Sending, t.Envelope = "", time.Time{}, false, time.Time{}, 0, false, nil
		t.PageCap, t.HoldUntil, t.Pages, t.Requests, t.MovedAt, t.Stalled = pageCap(t.Spec), time.Time{}, 0, 0, time.Time{}, false
		if err := putJSON(hb, []byte(t.Host), &hl); err != nil {
			return err
		}
		ok = true
		return putJSON(tb, []byte(id), &t)
	})
	if err == nil && optedOut != nil {
		err = fmt.Errorf("%w: %w", ErrNotGrantable, optedOut)
	}
	if err != nil {
		return Task{}, false, fmt.Errorf("grant the lease of task %s: %w", id, err)
	}
	return t, ok, nil
}

// current checks that t is open and its lease is of epoch.
func current(t *Task, epoch uint64) error {
	switch {
	case t.State != TaskOpen:
		return fmt.Errorf("%w: task %s", ErrLeaseOver, t.State)
	case t.Epoch == 0 || t.Epoch != epoch:
		return fmt.Errorf("%w: epoch %d is not the task's (%d)", ErrLeaseOver, epoch, t.Epoch)
	}
	return nil
}

// holdsHost checks that t's lease is its host's newest. A newer grant to
// another task of the host fences t's out, whatever the order in which
// the two were sent (two managers sharing the database can each grant
// one before either is sent).
func holdsHost(tx kv.Tx, t *Task) error {
	if t.Host == "" {
		return nil
	}
	var hl hostLease
	if _, err := getJSON(tx.Bucket(bucketHosts), []byte(t.Host), &hl); err != nil {
		return err
	}
	if hl.Task != t.ID || hl.Epoch != t.Epoch {
		return fmt.Errorf("%w: the lease on %s passed to task %s (epoch %d)", ErrLeaseOver, t.Host, hl.Task, hl.Epoch)
	}
	return nil
}

// leaseOp applies fn to task id in one transaction and stores the task
// when fn succeeds.
func (d *DB) leaseOp(id, what string, fn func(kv.Tx, *Task) error) (Task, error) {
	var t Task
	err := d.db.Update(func(tx kv.Tx) error {
		t = Task{} // a run again starts afresh (kv.Store.Update)
		tb := tx.Bucket(bucketTasks)
		found, err := getJSON(tb, []byte(id), &t)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: %w: task %s", ErrLeaseOver, ErrNotFound, id)
		}
		if err := fn(tx, &t); err != nil {
			return err
		}
		return putJSON(tb, []byte(id), &t)
	})
	if err != nil {
		return Task{}, fmt.Errorf("%s the lease of task %s: %w", what, id, err)
	}
	return t, nil
}

// lapsed reports whether open task t can be counted lost at now: granted
// and its lease can no longer be live, or never granted and past its
// deadline. A task whose lease may be live is never lost, whatever its
// deadline: counting it lost would free its host for a second crawler.
func (t *Task) lapsed(now time.Time, skew time.Duration) bool {
	if t.delivered() {
		return now.After(t.liveUntil(skew))
	}
	return !t.Deadline.IsZero() && now.After(t.Deadline)
}
