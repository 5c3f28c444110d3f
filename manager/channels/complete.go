package channels

import (
	"errors"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/task"
)

// Outcome is what Complete did.
type Outcome struct {
	Task Task
	// First is set when this result is the task's first: it was recorded.
	First bool
	// Channel is the channel after the feedback.
	Channel Channel
	// RoundDone is set when this result ended the channel's round; RoundOK
	// when the round brought at least one result.
	RoundDone, RoundOK bool
	// Continued is the continuation task Complete issued (Feedback.Continue).
	Continued string
	// Created are the channels made from inter-site URLs.
	Created []Channel
}

// Complete records peer's result for task id and applies fb to its
// channel, in one transaction. A task never issued is ErrNotFound; a task
// already done, or failed, is not changed (Outcome.First is false and
// Outcome.Task names the peer whose result was kept). A result that comes
// after the deadline but before Expire ran still counts.
func (d *DB) Complete(id, peer string, fb Feedback, now time.Time) (Outcome, error) {
	var out Outcome
	err := d.db.Update(func(tx kv.Tx) error {
		out = Outcome{} // a run again starts afresh (kv.Store.Update)
		chs, tb := channelsIn(tx), tx.Bucket(bucketTasks)
		found, err := getJSON(tb, []byte(id), &out.Task)
		if err != nil {
			return err
		}
		if !found {
			return ErrNotFound
		}
		if out.Task.State != TaskOpen {
			return nil
		}
		if out.Task.Epoch > 0 && out.Task.Holder != peer {
			return fmt.Errorf("%w: the lease is held by %q", ErrNotHolder, out.Task.Holder)
		}
		out.First = true
		listed := out.Task.revisited()
		out.Task.State, out.Task.Peer, out.Task.Finished = TaskDone, peer, now
		out.Task.Envelope, out.Task.Spec, out.Task.Listed, out.Task.ListedKept = nil, nil, nil, false
		if err := putJSON(tb, []byte(id), &out.Task); err != nil {
			return err
		}
		if out.Task.Host != "" {
			if _, err := reportTx(tx, out.Task.Host, peer, fb.HostAddrs, now); err != nil {
				return err
			}
		}
		if err := endLeaseTx(tx, &out.Task, now); err != nil {
			return err
		}
		if err := hostAsksTx(tx, out.Task.Host, fb, now); err != nil {
			return err
		}
		if out.Task.Checks != "" {
			return nil // a spot-check belongs to no round
		}
		var c Channel
		if _, err := getJSON(chs, []byte(out.Task.Channel), &c); err != nil {
			return err
		}
		c.apply(fb, now, out.Task.Round, out.Task.ID, listed, d.opts.Plan.Limit)
		c.lastFromResult(fb, now)
		continued, err := continueTx(tb, &c, out.Task, fb.Continue, now)
		if err != nil {
			return err
		}
		switch {
		case continued:
			out.Continued = fb.Continue.ID
			c.RoundOK = true
		case out.Task.Round == c.Round && c.Pending > 0:
			c.Pending--
			c.RoundOK = true
			out.RoundDone, out.RoundOK = c.Pending == 0, true
		}
		if out.RoundDone {
			c.settlePushes(out.Task.Round, true)
		}
		if err := putJSON(chs, []byte(c.ID), &c); err != nil {
			return err
		}
		if d.FollowsOtherHosts(c) && !c.Removed() {
			created, err := d.addInterSiteTx(tx, c.ID, fb.InterSite, now)
			if err != nil {
				return err
			}
			out.Created = created
		}
		if _, err := getJSON(chs, []byte(out.Task.Channel), &out.Channel); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("complete task %s: %w", id, err)
	}
	return out, nil
}

// continueTx stores next, the continuation of done task t, as an open
// task of t's round, when that round is still the channel's and next is
// well formed. The continuation gets as long as t had to bring a result.
func continueTx(tb kv.Bucket, c *Channel, t Task, next *task.Task, now time.Time) (bool, error) {
	if next == nil || t.Round != c.Round || c.Pending == 0 || next.Channel != t.Channel || next.Host() != t.Host {
		return false, nil
	}
	if tb.Get([]byte(next.ID)) != nil {
		return false, nil
	}
	spec, err := next.Encode()
	if err != nil || len(spec) > task.MaxEncodedSize-8<<10 { // room for the lease, target and policy
		return false, nil
	}
	rec := Task{ID: next.ID, Channel: t.Channel, Round: t.Round, Issued: now,
		Deadline: now.Add(t.Deadline.Sub(t.Issued)), State: TaskOpen, Spec: spec, Host: t.Host}
	return true, putJSON(tb, []byte(rec.ID), &rec)
}

// addInterSiteTx turns inter-site URLs that channel from reported into
// channels (or seeds of known channels) within the operator's limits,
// those linked from the most distinct domains first (ranked.go); URLs
// that do not parse are skipped, as they come from outside.
func (d *DB) addInterSiteTx(tx kv.Tx, from string, urls []string, now time.Time) ([]Channel, error) {
	var created []Channel
	if d.opts.MaxPerFeedback < 0 {
		return nil, nil
	}
	urls, err := d.rankTx(tx, from, urls)
	if err != nil {
		return nil, err
	}
	for _, u := range urls {
		if d.opts.MaxPerFeedback < 0 || len(created) >= d.opts.MaxPerFeedback {
			break
		}
		spent, err := d.budgetSpentTx(tx, u)
		if err != nil {
			return nil, err
		}
		if spent {
			continue // its domain made its budget of channels
		}
		c, isNew, err := d.addSeedTx(tx, u, SourceInterSite, now, true)
		switch {
		case errors.Is(err, ErrLimit):
			return created, nil
		case err != nil:
			continue
		case isNew:
			if err := forgetCandidateTx(tx, c.ID); err != nil {
				return nil, err
			}
			created = append(created, *c)
		}
	}
	return created, nil
}
