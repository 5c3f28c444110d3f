package channels

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"

	"github.com/hivecrawl/hivecrawl/task"
)

// CheckPrefix begins every spot-check task's ID (Task.Checks is set
// too): a lease claim of a task without it needs no spot-check rule.
const CheckPrefix = "check/"

// Task states.
const (
	TaskOpen   = "open"   // issued, no result yet
	TaskDone   = "done"   // a result was stored
	TaskFailed = "failed" // no result before its deadline
	// TaskCancelled: a crawler reported it cancelled the task (Reason).
	TaskCancelled = "cancelled"
)

// Task is the manager's record of one issued task.
type Task struct {
	ID      string    `json:"id"`
	Channel string    `json:"channel"`
	Round   int       `json:"round"`
	Issued  time.Time `json:"issued"`
	// Deadline is when an open task counts as lost.
	Deadline time.Time `json:"deadline"`
	State    string    `json:"state"`
	// Reason is why a crawler cancelled the task (report.Expired or
	// report.Refused).
	Reason string `json:"reason,omitempty"`
	// Peer is the peer whose result was stored (done tasks).
	Peer     string    `json:"peer,omitempty"`
	Finished time.Time `json:"finished,omitempty"`
	// Spec is the task as built at the round's start, unsigned: the lease,
	// target point and policy are added and it is signed when its host's
	// lease is granted.
	Spec []byte `json:"spec,omitempty"`
	// Envelope is the signed task, kept until it was sent into the overlay.
	Envelope []byte `json:"envelope,omitempty"`
	// Listed are the URL digests of the known pages the task revisits
	// (its validators), kept when Spec is dropped at sending, so that its
	// result counts as missed only the pages it asked for, and a page
	// the page plan left out keeps its validators. ListedKept tells an
	// empty list from none recorded.
	Listed     []task.Digest `json:"listed,omitempty"`
	ListedKept bool          `json:"listed_kept,omitempty"`
	// Host is the web host the task crawls: the lease is the host's.
	Host string `json:"host,omitempty"`
	// Epoch and StartBy are the lease granted when the task was signed
	// (zero before): the host's lease number, and when the task must have
	// started.
	Epoch   uint64    `json:"epoch,omitempty"`
	StartBy time.Time `json:"start_by,omitzero"`
	// Holder is the peer that claimed the lease, Expires when its claim
	// lapses unless renewed; Released is set when the holder stopped and
	// gave the lease up for an heir.
	Holder   string    `json:"holder,omitempty"`
	Expires  time.Time `json:"expires,omitzero"`
	Released bool      `json:"released,omitempty"`
	// PageCap is the most pages the task may fetch, read from its spec
	// at the grant; HoldUntil, set at the epoch's first claim, is when
	// its lease ends whoever holds it (holdFor).
	PageCap   int       `json:"page_cap,omitempty"`
	HoldUntil time.Time `json:"hold_until,omitzero"`
	// Pages and Requests are the progress the holder last showed, and
	// MovedAt when its crawl last moved: claimed, or renewed with more
	// of either. Stalled is set when a renewal was refused because the
	// crawl had not moved for longer than its host can ask (Renew).
	Pages    int       `json:"pages,omitempty"`
	Requests int       `json:"requests,omitempty"`
	MovedAt  time.Time `json:"moved_at,omitzero"`
	Stalled  bool      `json:"stalled,omitempty"`
	// ReleasedAt is when the holder released it: its last request to the
	// host came before, and the heir's first comes a politeness wait after.
	ReleasedAt time.Time `json:"released_at,omitzero"`
	// ReleaseWait is the wait the host asked the releasing holder for
	// (Crawl-delay, Retry-After), which its heir keeps after ReleasedAt.
	ReleaseWait time.Duration `json:"release_wait,omitempty"`
	// Sent is set once an entry peer of the overlay accepted the task;
	// Owner is the peer that queued it.
	Sent  bool   `json:"sent,omitempty"`
	Owner string `json:"owner,omitempty"`
	// Unanswered counts this task's sends that got no answer: the overlay
	// may or may not hold a copy, so the manager sends it again under a
	// new lease epoch unless it was claimed (MarkUnanswered).
	Unanswered int `json:"unanswered,omitempty"`
	// Checks, set on a spot-check task, is the task whose result it
	// checks: it re-fetches a sample of that result's pages and belongs to
	// no round of its channel. Avoid are the peers that must not run it
	// (the checked result's crawler and earlier checkers).
	Checks string   `json:"checks,omitempty"`
	Avoid  []string `json:"avoid,omitempty"`
	// Misrouted is set when a peer in Avoid tried to claim the task.
	Misrouted bool `json:"misrouted,omitempty"`
	// Sending is set while the manager hands the task to an entry peer.
	// Found set after a restart, it means the manager stopped mid-send and
	// the overlay may have queued the task.
	Sending bool `json:"sending,omitempty"`
}

// Issue stores the tasks of a channel's new round and marks the round
// submitted, in one transaction. Each task's Deadline must be set. It
// returns ErrIssued, and stores nothing, unless round follows the
// channel's last: a round is issued once, whichever of several managers
// sharing the database tries.
func (d *DB) Issue(channel string, round int, tasks []Task, now time.Time) error {
	err := d.db.Update(func(tx kv.Tx) error {
		chs, tb := channelsIn(tx), tx.Bucket(bucketTasks)
		var c Channel
		found, err := getJSON(chs, []byte(channel), &c)
		if err != nil {
			return err
		}
		if !found {
			return ErrNotFound
		}
		if c.Round != round-1 {
			return fmt.Errorf("%w: the channel is at round %d", ErrIssued, c.Round)
		}
		for _, t := range tasks {
			t.State = TaskOpen
			if err := putJSON(tb, []byte(t.ID), &t); err != nil {
				return err
			}
		}
		c.Round, c.Pending, c.RoundOK = round, len(tasks), false
		c.LastSubmit, c.CrawlSoon = now, false
		c.Submitted++
		return putJSON(chs, []byte(channel), &c)
	})
	if err != nil {
		return fmt.Errorf("issue round %d of %s: %w", round, channel, err)
	}
	return nil
}

// IssueCheck stores spot-check task t (t.Checks set, Deadline and Spec
// too) as open. It belongs to no round: its result or loss changes nothing
// in its channel.
func (d *DB) IssueCheck(t Task) error {
	if t.Checks == "" {
		return fmt.Errorf("issue check task %s: it checks no task", t.ID)
	}
	err := d.db.Update(func(tx kv.Tx) error {
		tb := tx.Bucket(bucketTasks)
		if tb.Get([]byte(t.ID)) != nil {
			return fmt.Errorf("task %s exists", t.ID)
		}
		t.State = TaskOpen
		return putJSON(tb, []byte(t.ID), &t)
	})
	if err != nil {
		return fmt.Errorf("issue check task %s: %w", t.ID, err)
	}
	return nil
}

// Task returns the record of task id.
func (d *DB) Task(id string) (Task, error) {
	var t Task
	err := d.db.View(func(tx kv.Tx) error {
		found, err := getJSON(tx.Bucket(bucketTasks), []byte(id), &t)
		if err == nil && !found {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		return Task{}, fmt.Errorf("get task %s: %w", id, err)
	}
	return t, nil
}

// MarkSent records that task id reached the overlay, queued by peer owner,
// and drops its kept envelope.
func (d *DB) MarkSent(id, owner string) error {
	err := d.updateTask(id, func(t *Task) {
		if len(t.Spec) > 0 {
			t.Listed = listedDigests(t.Spec)
			t.ListedKept = t.Listed != nil
		}
		t.Sent, t.Owner, t.Envelope, t.Spec, t.Sending = true, owner, nil, nil, false
	})
	if err != nil {
		return fmt.Errorf("mark task %s sent: %w", id, err)
	}
	return nil
}

// MarkUnanswered records a send of task id that got no answer, and
// returns how many of its sends went unanswered. The task stays being
// sent: Regrant grants it again under a new lease epoch unless a crawler
// claimed the copy the overlay may hold, which the new epoch fences out.
func (d *DB) MarkUnanswered(id string) (n int, err error) {
	err = d.updateTask(id, func(t *Task) {
		t.Unanswered++
		t.Sending = true
		n = t.Unanswered
	})
	if err != nil {
		return 0, fmt.Errorf("mark task %s sent without an answer: %w", id, err)
	}
	return n, nil
}

// MarkSending records that the manager starts (on) or gave up (off) handing
// task id to the overlay.
func (d *DB) MarkSending(id string, on bool) error {
	if err := d.updateTask(id, func(t *Task) { t.Sending = on }); err != nil {
		return fmt.Errorf("mark task %s as being sent: %w", id, err)
	}
	return nil
}

// Signed stores task id's signed envelope and marks it as being sent, in
// one transaction: found so after a restart, the task may be in the
// overlay.
func (d *DB) Signed(id string, env []byte) error {
	if err := d.updateTask(id, func(t *Task) { t.Envelope, t.Sending = env, true }); err != nil {
		return fmt.Errorf("store signed task %s: %w", id, err)
	}
	return nil
}

// updateTask applies fn to task id in one transaction.
func (d *DB) updateTask(id string, fn func(*Task)) error {
	return d.db.Update(func(tx kv.Tx) error {
		tb := tx.Bucket(bucketTasks)
		var t Task
		found, err := getJSON(tb, []byte(id), &t)
		if err != nil {
			return err
		}
		if !found {
			return ErrNotFound
		}
		fn(&t)
		return putJSON(tb, []byte(id), &t)
	})
}

// Open returns the open tasks.
func (d *DB) Open() ([]Task, error) {
	var out []Task
	err := d.db.View(func(tx kv.Tx) error {
		return forEachTask(tx, func(t Task) error {
			if t.State == TaskOpen {
				out = append(out, t)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list open tasks: %w", err)
	}
	return out, nil
}

// Tasks returns the tasks of every round and state that keep accepts.
func (d *DB) Tasks(keep func(Task) bool) ([]Task, error) {
	var out []Task
	err := d.db.View(func(tx kv.Tx) error {
		return forEachTask(tx, func(t Task) error {
			if keep(t) {
				out = append(out, t)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	return out, nil
}

// Latest returns, by channel ID, each channel's task of the latest round
// that reached a peer (the first piece when the round has several), or of
// its latest round when none has yet.
func (d *DB) Latest() (map[string]Task, error) {
	sent, any := map[string]Task{}, map[string]Task{}
	later := func(t, cur Task) bool { return t.Round > cur.Round || (t.Round == cur.Round && t.ID < cur.ID) }
	err := d.db.View(func(tx kv.Tx) error {
		return forEachTask(tx, func(t Task) error {
			if t.Checks != "" {
				return nil
			}
			t.Envelope, t.Spec, t.Listed = nil, nil, nil
			if cur, ok := any[t.Channel]; !ok || later(t, cur) {
				any[t.Channel] = t
			}
			if t.Owner == "" && t.Peer == "" {
				return nil
			}
			if cur, ok := sent[t.Channel]; !ok || later(t, cur) {
				sent[t.Channel] = t
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("latest tasks: %w", err)
	}
	for ch, t := range any {
		if _, ok := sent[ch]; !ok {
			sent[ch] = t
		}
	}
	return sent, nil
}

// TaskStats are the task table's figures, gathered in one pass.
type TaskStats struct {
	// Counts are tasks per state; Cancelled, cancelled tasks per reason.
	Counts, Cancelled map[string]int
	// OldestOpen is when the oldest open crawl task was issued; zero when
	// none is open. An old one is a task no peer has finished nor the
	// manager yet counted lost. Spot-checks do not count: they wait for
	// their host's lease behind its rounds, and a lost one is issued
	// again.
	OldestOpen time.Time
}

// Stats returns the task table's figures.
func (d *DB) Stats() (TaskStats, error) {
	st := TaskStats{Counts: map[string]int{}, Cancelled: map[string]int{}}
	err := d.db.View(func(tx kv.Tx) error {
		return forEachTask(tx, func(t Task) error {
			st.Counts[t.State]++
			switch {
			case t.State == TaskCancelled:
				st.Cancelled[t.Reason]++
			case t.State == TaskOpen && t.Checks == "" && (st.OldestOpen.IsZero() || t.Issued.Before(st.OldestOpen)):
				st.OldestOpen = t.Issued
			}
			return nil
		})
	})
	if err != nil {
		return TaskStats{}, fmt.Errorf("task figures: %w", err)
	}
	return st, nil
}

func forEachTask(tx kv.Tx, fn func(Task) error) error {
	return tx.Bucket(bucketTasks).ForEach(func(k, v []byte) error {
		var t Task
		if err := json.Unmarshal(v, &t); err != nil {
			return fmt.Errorf("decode task %s: %w", k, err)
		}
		return fn(t)
	})
}
