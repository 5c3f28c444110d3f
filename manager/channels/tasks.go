package channels

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"

	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/task"
)

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

// PageResult is one stored page of a result, as the storage module
// classified it against what it held.
type PageResult struct {
	URL          string      `json:"url"`
	Digest       task.Digest `json:"digest"`
	ETag         string      `json:"etag,omitempty"`
	LastModified string      `json:"last_modified,omitempty"`
	// Depth and Parent are where the crawl found the page (task.Page).
	Depth  int         `json:"depth,omitempty"`
	Parent task.Digest `json:"parent,omitempty"`
	// Known is set when the page was known before (so it counts as an
	// observation for the change estimate); Changed when its content
	// differs from what was known.
	Known   bool `json:"known"`
	Changed bool `json:"changed"`
}

// Classify turns page p of a result into what the channel database learns
// from it, against the stored copy: known says whether one is stored,
// stored is its digest. unchanged is set when p brings nothing new to
// store: reported unchanged, or with the stored digest. A page reported
// unchanged without a digest (a 304, or a page its sitemap dated before the
// stored copy: no body was digested) keeps the stored digest; a changed
// page is Changed when it was known.
func Classify(p *task.Page, stored task.Digest, known bool) (pr PageResult, unchanged bool) {
	pr = PageResult{URL: p.URL, Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified,
		Depth: p.Depth, Parent: p.Parent, Known: known}
	if p.Unchanged && p.Digest == 0 {
		pr.Digest = stored
	}
	if p.Unchanged || (known && stored == p.Digest) {
		return pr, true
	}
	pr.Changed = known
	return pr, false
}

// Feedback is what one stored result tells the channel database.
type Feedback struct {
	Pages     []PageResult
	Stats     task.Stats
	InterSite []string
	// Stopped is the result's task.Result.Stopped: a crawl cut short does
	// not count its missing pages as gone.
	Stopped string
	// Continue, set for a crawl its volunteer handed off
	// (task.StoppedHandedOff), is the unsigned continuation task: it joins
	// the result's round in the task's place, so the round ends with the
	// continuation's result, not this one.
	Continue *task.Task
	// HostWait and HostRest are what the host asked of its crawler
	// (task.Result): the host's next lease keeps them.
	HostWait time.Duration
	HostRest time.Time
	// HostAddrs are the addresses the crawler connected to its host at
	// (task.Result): the host's per-address limits count them.
	HostAddrs []string
	// Strike is the result's task.Result.Strike: the host rests for
	// every crawler, longer at each strike in a row.
	Strike string
	// Refused is the result's task.Result.Refused: the host's robots.txt
	// refuses the crawl's purpose, and the host rests for
	// task.RefusalRest. It is no strike.
	Refused string
}

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

// apply folds the result of task id of the given round into the channel;
// listed are the known pages the task revisited (nil: it was not
// recorded), limit the page plan's.
func (c *Channel) apply(fb Feedback, now time.Time, round int, id string, listed revisits, limit int) {
	if c.Pages == nil {
		c.Pages = make(map[string]Page)
	}
	known, changed := 0, 0
	var unchanged []string
	for _, p := range fb.Pages {
		if p.Known {
			known++
			if p.Changed {
				changed++
			}
		}
		old, ok := c.Pages[p.URL]
		np := Page{Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified, Crawled: now, Since: now,
			Depth: p.Depth, Parent: cmp.Or(p.Parent, old.Parent), Round: round}
		if ok && old.Digest == p.Digest {
			np.Since = old.stableSince()
		}
		f := old.freq()
		if p.Known && ok {
			f.Crawled(p.Changed, limit)
			np.Seen, np.Changes, np.Span = old.Seen, old.Changes, old.Span
			np.observe(p.Changed, round-old.Round)
			if !p.Changed {
				unchanged = append(unchanged, p.URL)
			}
		} else {
			f = recrawl.PageFreq{FrMax: 1} // new: revisited next round
		}
		np.setFreq(f)
		c.Pages[p.URL] = np
	}
	c.selective(unchanged)
	c.countMisses(fb, id, round, listed)
	if !c.LastUpdate.IsZero() && now.After(c.LastUpdate) {
		c.Estimate.Observe(known, changed, now.Sub(c.LastUpdate))
		if v, ok := c.Estimate.Interval(); ok {
			c.ChangeInterval = v
		}
	}
	if c.Dirs == nil {
		c.Dirs = make(map[string]int)
	}
	for dir, n := range fb.Stats.Dirs {
		c.Dirs[dir] = n
	}
	c.ExpectedPages = len(c.Pages)
	if len(fb.InterSite) > 0 {
		set := task.NewDigestSet(c.InterSite)
		for _, u := range fb.InterSite {
			if len(set) >= maxInterSiteDigests {
				break
			}
			set[task.DigestString(u)] = struct{}{}
		}
		c.InterSite = sortedDigests(set)
	}
	c.LastUpdate = now
	c.Updates++
}

// selective applies paper 003's selective incremental rule to the pages a
// crawl found unchanged: one whose children (the pages it links to, as
// Page.Parent records) changed in a share at least its threshold at their
// latest crawl is followed, its children revisited next round whether due
// or not; the threshold moves towards the share seen (PageFreq.Follow).
func (c *Channel) selective(unchanged []string) {
	if len(unchanged) == 0 {
		return
	}
	type tally struct{ seen, changed int }
	kids := make(map[task.Digest]*tally, len(unchanged))
	for _, u := range unchanged {
		kids[task.DigestString(u)] = &tally{}
	}
	for _, p := range c.Pages {
		if k := kids[p.Parent]; p.Parent != 0 && k != nil && p.Records > 0 {
			k.seen++
			if p.History&1 == 1 {
				k.changed++
			}
		}
	}
	for _, u := range unchanged {
		p := c.Pages[u]
		k := kids[task.DigestString(u)]
		p.Follow = false
		if k.seen > 0 {
			f := p.freq()
			p.Follow = f.Follow(float64(k.changed) / float64(k.seen))
			p.setFreq(f)
		}
		c.Pages[u] = p
	}
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
