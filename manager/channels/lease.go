package channels

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/task"
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

var bucketHosts = []byte("hosts") // host → hostLease

// hostLease is a host's lease record: the last epoch granted and the task
// it was granted to.
type hostLease struct {
	Epoch uint64 `json:"epoch"`
	Task  string `json:"task"`
	// Ended is when the last lease ended with a result or a report.
	Ended time.Time `json:"ended,omitzero"`
	// Wait is the politeness wait the host asked its last crawler for
	// (Crawl-delay), Rest when it asked to be left alone until
	// (Retry-After): the next lease keeps the longer of Wait and the
	// operator's after Ended, and is not granted before Rest.
	Wait time.Duration `json:"wait,omitempty"`
	Rest time.Time     `json:"rest,omitzero"`
	// Addrs are the host's addresses as its crawlers reported them
	// (limits.go).
	Addrs []hostAddr `json:"addrs,omitempty"`
	// Strikes are the strikes in a row (backoff.go), the last at Struck.
	Strikes int       `json:"strikes,omitempty"`
	Struck  time.Time `json:"struck,omitzero"`
	// Answers counts the host's pages by AnswerKinds (pushback.go).
	Answers map[string]int `json:"answers,omitempty"`
	// Lapsed is the last peer that let the host's lease lapse without a
	// result, at LapsedAt: for LapseMemory it is neither sent the host's
	// tasks (the manager aims them at another member) nor granted them.
	Lapsed   string    `json:"lapsed,omitempty"`
	LapsedAt time.Time `json:"lapsed_at,omitzero"`
}

// LapseMemory is how long a peer that let a host's lease lapse is kept
// off the host: a squatter that owns the host's zone would otherwise get
// each of its tasks in turn.
const LapseMemory = 24 * time.Hour

// Lapsed returns the peer that let host's lease lapse within LapseMemory
// before now, if any.
func (d *DB) Lapsed(host string, now time.Time) (string, error) {
	var hl hostLease
	err := d.db.View(func(tx kv.Tx) error {
		_, err := getJSON(tx.Bucket(bucketHosts), []byte(host), &hl)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read the lease of %s: %w", host, err)
	}
	return hl.lapsedPeer(now), nil
}

// lapsedPeer is the peer kept off the host at now, if any.
func (hl *hostLease) lapsedPeer(now time.Time) string {
	if hl.Lapsed == "" || !now.Before(hl.LapsedAt.Add(LapseMemory)) {
		return ""
	}
	return hl.Lapsed
}

// Bounds on what a result may say its host asked for: a volunteer's word,
// so that it cannot hold a host for long.
const (
	MaxHostWait = 24 * time.Hour // crawler.MaxAskedDelay
	MaxHostRest = time.Hour
)

// How long a lease may be held (Renew, holdFor). A lease is a grant to
// crawl, not to hold a host: whoever holds it, it ends when its crawl
// stops moving or has had all the time its task can need.
const (
	// StallWait is the longest wait between two requests a host can ask
	// of a crawl that the manager honours in a renewal
	// (crawler.MaxCrawlDelay; a longer Crawl-delay gets one page a task).
	StallWait = 5 * time.Minute
	// PageTime is what one page may take beside its politeness wait, in
	// a task's longest hold.
	PageTime = 5 * time.Second
	// DefaultPageCap is the pages of a task that sets none
	// (crawler.DefaultMaxPages).
	DefaultPageCap = 10000
)

// ErrStalled: a renewal refused because the crawl has not moved for
// longer than its host asked it to wait. It wraps ErrLeaseOver.
var ErrStalled = fmt.Errorf("%w: the crawl has not moved", ErrLeaseOver)

// Progress is what a renewal shows of its crawl (lease.Request).
type Progress struct {
	Pages, Requests int
	// Wait is how long the host asked the next request to wait.
	Wait time.Duration
}

// holdFor is the longest task t's lease may be held in all, from its
// first claim: every page it may fetch, each after the politeness wait
// (the operator's, or the longer one its host asked for, up to
// StallWait) and PageTime, and one hold's margin. 10,000 pages at the
// default 1 s wait: 16 h 45 min; a spot-check of 20 pages: 7 min.
func holdFor(t *Task, hl *hostLease, lt LeaseTimes) time.Duration {
	pages := t.PageCap
	if pages <= 0 {
		pages = DefaultPageCap
	}
	wait := min(max(lt.Gap, hl.Wait), StallWait)
	return lt.Hold + time.Duration(pages)*(wait+PageTime)
}

// pageCap reads the page limit of a task's spec; 0 when it sets none or
// cannot be read.
func pageCap(spec []byte) int {
	var s struct {
		MaxPages int `json:"max_pages"`
	}
	if len(spec) == 0 || json.Unmarshal(spec, &s) != nil {
		return 0
	}
	return max(s.MaxPages, 0)
}

// hostAsksTx records on host's lease record what the host asked of the
// crawler whose result fb came at now, within MaxHostWait and
// MaxHostRest, and a refusal's task.RefusalRest.
func hostAsksTx(tx kv.Tx, host string, fb Feedback, now time.Time) error {
	if host == "" {
		return nil
	}
	hb := tx.Bucket(bucketHosts)
	var hl hostLease
	if _, err := getJSON(hb, []byte(host), &hl); err != nil {
		return err
	}
	hl.Wait = min(max(fb.HostWait, 0), MaxHostWait)
	if rest := fb.HostRest; rest.After(now) {
		hl.Rest = rest
		if limit := now.Add(MaxHostRest); rest.After(limit) {
			hl.Rest = limit
		}
	}
	if fb.Refused != "" {
		// Asked again once its robots.txt may have changed.
		if until := now.Add(task.RefusalRest); until.After(hl.Rest) {
			hl.Rest = until
		}
	}
	hl.strike(knownStrike(fb.Strike), now, jitter())
	hl.countAnswers(fb.Stats.Errors)
	return putJSON(hb, []byte(host), &hl)
}

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
		t.Holder, t.Expires, t.Released, t.ReleasedAt, t.Sending, t.Envelope = "", time.Time{}, false, time.Time{}, false, nil
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

// Claim gives task id's lease of the given epoch to peer, the crawler about
// to start it, until now+Hold. The holder itself may claim again (after a
// restart); another peer only when the lease is unclaimed, released (and
// the politeness wait has passed since) or lapsed, and only before the
// task's StartBy. ErrLeaseHeld: try later; ErrLeaseOver: drop the task.
func (d *DB) Claim(id string, epoch uint64, peer string, now time.Time, lt LeaseTimes) (Task, error) {
	return d.ClaimFrom(id, epoch, peer, nil, now, lt)
}

// ClaimFrom is Claim with the addresses the crawler resolved its host to.
// A new holder's claim is held (ErrLeaseHeld) while the host's address or
// registrable domain has lt.Limits' cap of leases running, or the IP wait
// has not passed since the last one on it started or ended.
func (d *DB) ClaimFrom(id string, epoch uint64, peer string, addrs []string, now time.Time, lt LeaseTimes) (Task, error) {
	if len(addrs) > 0 {
		// Recorded whether the claim is granted or held: a held claim's
		// address and domain count too.
		if err := d.report(id, epoch, peer, addrs, now); err != nil {
			return Task{}, err
		}
	}
	var misrouted bool
	t, err := d.leaseOp(id, "claim", func(tx kv.Tx, t *Task) error {
		if err := leaseOptedOut(tx, t.Host); err != nil {
			return err
		}
		if t.State == TaskOpen && slices.Contains(t.Avoid, peer) {
			// The overlay delivered a spot-check to the crawler it checks
			// (zones moved under the manager's view). Refused here,
			// whatever the overlay did: the check ends as misrouted, the
			// host's lease with it, and the check is issued again.
			misrouted = true
			return misrouteTx(tx, t, now)
		}
		if err := current(t, epoch); err != nil {
			return err
		}
		if err := holdsHost(tx, t); err != nil {
			return err
		}
		switch {
		case t.Holder == peer:
		case t.Holder != "" && !t.Released && now.Before(t.Expires.Add(lt.Skew+lt.Gap)):
			return ErrLeaseHeld // held, or lapsed under the politeness wait
		case t.Released && now.Before(t.ReleasedAt.Add(lt.Gap)):
			// The holder that handed the task over stopped just now: its
			// heir's first request keeps the wait after its last.
			return &HeldError{
				Why:     fmt.Sprintf("released %v ago, under the politeness wait", now.Sub(t.ReleasedAt).Round(time.Millisecond)),
				RetryIn: t.ReleasedAt.Add(lt.Gap).Sub(now),
			}
		case !now.Before(t.StartBy):
			return fmt.Errorf("%w: not started before %s", ErrLeaseOver, t.StartBy.UTC().Format(time.RFC3339))
		}
		var hl hostLease
		if t.Host != "" {
			if _, err := getJSON(tx.Bucket(bucketHosts), []byte(t.Host), &hl); err != nil {
				return err
			}
		}
		if t.Holder != peer && hl.lapsedPeer(now) == peer {
			return fmt.Errorf("%w: %s let this host's lease lapse at %s and is not granted it again before %s", ErrLeaseOver,
				peer, hl.LapsedAt.UTC().Format(time.RFC3339), hl.LapsedAt.Add(LapseMemory).UTC().Format(time.RFC3339))
		}
		if t.Holder != peer && t.Host != "" && lt.Limits.active() {
			why, retryIn, err := limitsTx(tx, t, hl.addrsOf(now), now, lt, running(now, lt.Skew), true)
			if err != nil {
				return err
			}
			if why != "" {
				return &HeldError{Why: why, RetryIn: retryIn}
			}
		}
		if t.HoldUntil.IsZero() {
			t.HoldUntil = now.Add(holdFor(t, &hl, lt))
		}
		if !now.Before(t.HoldUntil) {
			return fmt.Errorf("%w: held for all its task can need, until %s", ErrLeaseOver, t.HoldUntil.UTC().Format(time.RFC3339))
		}
		if t.Holder != peer || t.Released {
			// A new holder (or the heir of a handover) starts moving
			// now, its pages counted afresh; the holder claiming again
			// after a restart does not.
			t.MovedAt, t.Pages = now, 0
		}
		// Requests count from the crawler's start: a restart counts
		// again from 0.
		t.Requests = 0
		// A claim proves the task was delivered, whatever its send was
		// told: it is not sent again.
		t.Holder, t.Released, t.ReleasedAt, t.Expires, t.Sent, t.Sending = peer, false, time.Time{}, earliest(now.Add(lt.Hold), t.HoldUntil), true, false
		return nil
	})
	if err == nil && misrouted {
		return Task{}, fmt.Errorf("claim the lease of task %s: %w: %s may not run a spot-check of its own result", id, ErrLeaseOver, peer)
	}
	return t, err
}

// ReasonMisrouted is the Reason of a spot-check refused to a peer it had
// to avoid.
const ReasonMisrouted = "misrouted"

// misrouteTx ends open spot-check t as misrouted at now, its host's
// lease with it; the storage module issues the check again.
func misrouteTx(tx kv.Tx, t *Task, now time.Time) error {
	t.State, t.Reason, t.Misrouted, t.Finished, t.Envelope, t.Spec = TaskCancelled, ReasonMisrouted, true, now, nil, nil
	return endLeaseTx(tx, t, now)
}

// Misroute ends open spot-check id of epoch as misrouted, refusing the
// claim of a peer the manager does not let run it (one linked to the
// result it checks), as Claim does for a peer in its Avoid. A task that
// is no open check of epoch is left as it is.
func (d *DB) Misroute(id string, epoch uint64, now time.Time) error {
	_, err := d.leaseOp(id, "refuse", func(tx kv.Tx, t *Task) error {
		if t.Checks == "" || t.State != TaskOpen || t.Epoch != epoch {
			return nil
		}
		return misrouteTx(tx, t, now)
	})
	return err
}

// Renew extends the lease peer holds on task id to now+Hold, or to its
// HoldUntil when sooner, when its crawl moves: p shows more pages or
// more requests than the last renewal, or the last move was no longer
// ago than Hold and the wait its host asked for (up to StallWait).
// A lease that lapsed, was released, is held by another peer or is no
// longer its host's newest is ErrLeaseOver: the crawler must stop at
// once. A lease past its HoldUntil, or whose crawl stalled (ErrStalled),
// ends now: the host is free for a next task once the clock skew
// allowance has passed.
func (d *DB) Renew(id string, epoch uint64, peer string, p Progress, now time.Time, lt LeaseTimes) (Task, error) {
	var refused error
	t, err := d.leaseOp(id, "renew", func(tx kv.Tx, t *Task) error {
		refused = nil // a run again starts afresh (kv.Store.Update)
		if err := leaseOptedOut(tx, t.Host); err != nil {
			return err
		}
		if err := current(t, epoch); err != nil {
			return err
		}
		if err := holdsHost(tx, t); err != nil {
			return err
		}
		if t.Holder != peer || t.Released || !now.Before(t.Expires) {
			return fmt.Errorf("%w: not held by %s", ErrLeaseOver, peer)
		}
		if p.Pages > t.Pages || p.Requests > t.Requests || t.MovedAt.IsZero() {
			// A lease claimed from a manager that did not count moves
			// starts counting now.
			t.Pages, t.Requests, t.MovedAt = max(p.Pages, t.Pages), max(p.Requests, t.Requests), now
		}
		still := now.Sub(t.MovedAt)
		switch {
		case !t.HoldUntil.IsZero() && !now.Before(t.HoldUntil):
			refused = fmt.Errorf("%w: held for all its task can need, until %s", ErrLeaseOver, t.HoldUntil.UTC().Format(time.RFC3339))
		case still > lt.Hold+min(max(p.Wait, 0), StallWait):
			refused = fmt.Errorf("%w for %v (%d pages, %d requests)", ErrStalled, still.Round(time.Second), t.Pages, t.Requests)
			t.Stalled = true
		default:
			t.Expires = earliest(now.Add(lt.Hold), t.HoldUntil)
			return nil
		}
		t.Expires = now
		return nil
	})
	if err == nil && refused != nil {
		return Task{}, fmt.Errorf("renew the lease of task %s: %w", id, refused)
	}
	return t, err
}

// earliest returns the earlier of a and b, a when b is zero.
func earliest(a, b time.Time) time.Time {
	if !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// Release records that peer, the holder, stopped crawling task id at now
// (it leaves and hands the task to an heir, which may claim it once the
// politeness wait has passed).
func (d *DB) Release(id string, epoch uint64, peer string, now time.Time) (Task, error) {
	return d.leaseOp(id, "release", func(_ kv.Tx, t *Task) error {
		if t.Epoch != epoch || t.Holder != peer {
			return fmt.Errorf("%w: not held by %s", ErrLeaseOver, peer)
		}
		if !t.Released {
			t.Released, t.ReleasedAt = true, now
		}
		return nil
	})
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

// updateHostLeaseTx applies fn to the lease record of t's host and stores
// it, when t holds the host's current lease.
func updateHostLeaseTx(tx kv.Tx, t *Task, fn func(*hostLease) error) error {
	if t.Epoch == 0 || t.Host == "" {
		return nil
	}
	hb := tx.Bucket(bucketHosts)
	var hl hostLease
	if _, err := getJSON(hb, []byte(t.Host), &hl); err != nil {
		return err
	}
	if hl.Task != t.ID {
		return nil
	}
	if err := fn(&hl); err != nil {
		return err
	}
	return putJSON(hb, []byte(t.Host), &hl)
}

// lapseTx records on t's host that its holder let the lease lapse at
// now, when t holds the host's current lease and a holder that did not
// release it.
func lapseTx(tx kv.Tx, t *Task, now time.Time) error {
	if t.Holder == "" || t.Released {
		return nil
	}
	return updateHostLeaseTx(tx, t, func(hl *hostLease) error {
		hl.Lapsed, hl.LapsedAt = t.Holder, now
		return nil
	})
}

// endLeaseTx records that task t's lease ended at now, when t holds its
// host's current lease.
func endLeaseTx(tx kv.Tx, t *Task, now time.Time) error {
	return updateHostLeaseTx(tx, t, func(hl *hostLease) error {
		hl.Ended = now
		return limitsEndedTx(tx, t.Host, hl, now)
	})
}
