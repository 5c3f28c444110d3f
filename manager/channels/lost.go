package channels

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Lost is one task Expire marked failed.
type Lost struct {
	Task Task
	// RoundDone is set when the task was the last open one of its
	// channel's current round; RoundOK when that round brought a result.
	RoundDone, RoundOK bool
	ChannelIndex       int
}

// Expire marks as failed, and returns, the open tasks that can be counted
// lost at now: those whose host lease can no longer be live (skew is the
// allowance for crawler clocks), and those never granted a lease whose
// deadline passed.
func (d *DB) Expire(now time.Time, skew time.Duration) ([]Lost, error) {
	var out []Lost
	err := d.db.Update(func(tx kv.Tx) error {
		out = nil // a run again starts afresh (kv.Store.Update)
		chs, tb := channelsIn(tx), tx.Bucket(bucketTasks)
		var due []Task
		if err := forEachTask(tx, func(t Task) error {
			if t.State == TaskOpen && t.lapsed(now, skew) {
				due = append(due, t)
			}
			return nil
		}); err != nil {
			return err
		}
		for _, t := range due {
			l, err := endTx(chs, tb, t, TaskFailed, "", now)
			if err != nil {
				return err
			}
			if err := endLeaseTx(tx, &t, now); err != nil {
				return err
			}
			if err := lapseTx(tx, &t, now); err != nil {
				return err
			}
			out = append(out, l)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expire tasks: %w", err)
	}
	return out, nil
}

// Cancel marks open task id as cancelled by crawler peer for reason and
// returns how that ended its round. epoch is the lease epoch of the
// reporter's copy (0 for a task without a lease). ok is false when the task
// was not open (it has a result, was lost, or was reported before), the
// copy is of an older grant (it was fenced out by a new one), or another
// peer holds its lease (the reporter's copy never ran; the holder's may be
// running): nothing changes.
func (d *DB) Cancel(id string, epoch uint64, peer, reason string, now time.Time) (l Lost, ok bool, err error) {
	err = d.db.Update(func(tx kv.Tx) error {
		l, ok = Lost{}, false // a run again starts afresh (kv.Store.Update)
		chs, tb := channelsIn(tx), tx.Bucket(bucketTasks)
		var t Task
		found, err := getJSON(tb, []byte(id), &t)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: task %s", ErrNotFound, id)
		}
		if t.State != TaskOpen || (t.Epoch > 0 && epoch != t.Epoch) || (t.Holder != "" && t.Holder != peer && !t.Released) {
			return nil
		}
		l, err = endTx(chs, tb, t, TaskCancelled, reason, now)
		if err != nil {
			return err
		}
		ok = true
		return endLeaseTx(tx, &t, now)
	})
	if err != nil {
		return Lost{}, false, fmt.Errorf("cancel task %s: %w", id, err)
	}
	return l, ok, nil
}

// ReasonHandedBack is the reason of a task a leaving crawler handed back
// because no neighbour could queue it (report.HandedBack): not a failure,
// and its channel is due again at once.
const ReasonHandedBack = "handed back"

// endTx ends open task t in state (failed or cancelled) and counts it
// against its channel's round.
func endTx(chs, tb kv.Bucket, t Task, state, reason string, now time.Time) (Lost, error) {
	t.State, t.Reason, t.Finished, t.Envelope, t.Spec, t.Listed, t.ListedKept = state, reason, now, nil, nil, nil, false
	if err := putJSON(tb, []byte(t.ID), &t); err != nil {
		return Lost{}, err
	}
	var c Channel
	if _, err := getJSON(chs, []byte(t.Channel), &c); err != nil {
		return Lost{}, err
	}
	l := Lost{Task: t, ChannelIndex: c.Index}
	if t.Checks != "" {
		return l, nil // a spot-check belongs to no round
	}
	if reason == ReasonHandedBack {
		// Nobody could keep the task: crawl the host again at once.
		c.CrawlSoon = !c.Paused && !c.Removed()
	} else {
		c.Failures++
	}
	c.lastLost(reason, now)
	if t.Round == c.Round && c.Pending > 0 {
		c.Pending--
		l.RoundDone, l.RoundOK = c.Pending == 0, c.RoundOK
	}
	if l.RoundDone {
		c.settlePushes(t.Round, l.RoundOK)
	}
	if err := putJSON(chs, []byte(c.ID), &c); err != nil {
		return Lost{}, err
	}
	return l, nil
}
