package channels

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
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
// politeness wait has passed: the operator's, or the longer one the host
// asked the holder for, wait, up to StallWait, the most a renewal
// honours: a leaver that claims more holds its heir no longer).
func (d *DB) Release(id string, epoch uint64, peer string, wait time.Duration, now time.Time) (Task, error) {
	return d.leaseOp(id, "release", func(_ kv.Tx, t *Task) error {
		if t.Epoch != epoch || t.Holder != peer {
			return fmt.Errorf("%w: not held by %s", ErrLeaseOver, peer)
		}
		if !t.Released {
			t.Released, t.ReleasedAt, t.ReleaseWait = true, now, min(max(wait, 0), StallWait)
		}
		return nil
	})
}
