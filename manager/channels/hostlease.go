package channels

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/task"
)

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
