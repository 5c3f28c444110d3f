// Package taskbook is the manager's book of issued tasks as the other
// services meet it. The storage module completes a task with its result
// and issues spot-checks into it; a crawler reports a task it cancelled;
// the schedule round counts the tasks whose leases ran out. Each outcome
// closes the task in the channel database, which is the authority on a
// task's state, and then tells the recrawl schedule how the channel's
// round went: a success, a failure that shows the swarm's load (expired,
// refused) or one that does not (lost), or nothing for a task a leaving
// crawler handed back (design.md §9).
package taskbook

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/rounds"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/task"
)

// Counts are told each outcome the book records, once per task: the
// manager's metrics.
type Counts interface {
	Completed(t channels.Task, fb channels.Feedback)
	Cancelled(t channels.Task, reason string)
	Lost(t channels.Task)
	CheckIssued()
}

// Config is what a Book is given. Every field is required but Forfeit.
type Config struct {
	DB       *channels.DB
	Schedule *rounds.Schedule
	// Key is the manager's public key: a report's task envelope must
	// open with it.
	Key crypto.PubKey
	// Delay is the politeness wait signed into a spot-check; Slack is
	// added to its deadline.
	Delay, Slack time.Duration
	// ClockSkew is how long after its lease's end a task may still be
	// live on a crawler whose clock runs behind (channels.DB.Expire).
	ClockSkew time.Duration
	// CountFrom is when Expire starts counting lost tasks: the manager's
	// start plus its restart grace, so that crawlers that finished while
	// it was down deliver their results first.
	CountFrom time.Time
	// Forfeit records against a peer that it let a lease lapse without a
	// result (storage.Storage.Forfeit); nil records nothing.
	Forfeit func(peer, why string) error
	Counts  Counts
	Now     func() time.Time
	Logger  *slog.Logger
}

// Book is the task book. Its methods are safe for concurrent use as far
// as the channel database's and the schedule's are.
type Book struct{ cfg Config }

// New returns the book cfg describes.
func New(cfg Config) *Book { return &Book{cfg: cfg} }

var (
	_ storage.Tasks   = (*Book)(nil)
	_ storage.Checker = (*Book)(nil)
)

// Task returns the record of an issued task.
func (b *Book) Task(id string) (channels.Task, error) { return b.cfg.DB.Task(id) }

// Complete records peer's result for task id and, for the task's first
// result, counts a succeeded round.
func (b *Book) Complete(_ context.Context, id, peer string, fb channels.Feedback) (channels.Outcome, error) {
	now := b.cfg.Now()
	out, err := b.cfg.DB.Complete(id, peer, fb, now)
	if err != nil || !out.First {
		return out, err
	}
	b.cfg.Counts.Completed(out.Task, fb)
	if out.RoundDone && out.RoundOK {
		b.cfg.Schedule.Succeeded(out.Channel.Index, now)
	}
	return out, nil
}

// Report records a crawler's report that it cancelled a task: the
// envelope must be one the manager signed, and the task still open and
// the reporter's (channels.DB.Cancel); counted says whether it was. A
// round it ends without a result is a load-dependent failure for the
// strategy, unless the task was handed back.
func (b *Book) Report(_ context.Context, from peer.ID, r report.Report) (counted bool, err error) {
	t, err := envelope.Open(r.Task, b.cfg.Key)
	if err != nil {
		return false, fmt.Errorf("refused: %w", err)
	}
	now := b.cfg.Now()
	// The report's reason is the task's: report.HandedBack is
	// channels.ReasonHandedBack, which the channel does not count as a
	// failure (the manager's TestHandedBackReissuedAtOnce holds them
	// together).
	l, ok, err := b.cfg.DB.Cancel(t.ID, t.Lease.Epoch, from.String(), r.Reason, now)
	if err != nil || !ok {
		return false, err
	}
	b.cfg.Logger.Info("Task cancelled by a crawler", "task", t.ID, "peer", from, "reason", r.Reason)
	b.cfg.Counts.Cancelled(l.Task, r.Reason)
	switch {
	case !l.RoundDone || r.Reason == report.HandedBack:
		// A task handed back is no failure of its round: the channel
		// is due again at once (channels.ReasonHandedBack).
	case l.RoundOK:
		b.cfg.Schedule.Succeeded(l.ChannelIndex, now)
	case r.Reason == report.Refused:
		b.cfg.Schedule.Failed(l.ChannelIndex, recrawl.FailRefused, now)
	default:
		b.cfg.Schedule.Failed(l.ChannelIndex, recrawl.FailExpired, now)
	}
	return true, nil
}

// Expire counts the tasks lost by now and the rounds they fail, from
// Config.CountFrom on.
func (b *Book) Expire(now time.Time) error {
	if now.Before(b.cfg.CountFrom) {
		return nil
	}
	lost, err := b.cfg.DB.Expire(now, b.cfg.ClockSkew)
	if err != nil {
		return err
	}
	for _, l := range lost {
		b.forfeit(l.Task)
		b.cfg.Logger.Info("Task lost", "task", l.Task.ID, "sent", l.Task.Sent)
		b.cfg.Counts.Lost(l.Task)
		switch {
		case !l.RoundDone:
		case l.RoundOK:
			b.cfg.Schedule.Succeeded(l.ChannelIndex, now)
		default:
			b.cfg.Schedule.Failed(l.ChannelIndex, recrawl.FailLost, now)
		}
	}
	return nil
}

// forfeit costs the holder of lost task t its standing when it let the
// lease lapse without a result: it stopped renewing, or its crawl
// stalled, and the host waited for it. A holder that released the task
// for an heir does not pay; nor one whose lease ended at its task's
// longest hold, as its result comes at once.
func (b *Book) forfeit(t channels.Task) {
	if b.cfg.Forfeit == nil || t.Holder == "" || t.Released {
		return
	}
	why := "its lease lapsed without a result"
	if t.Stalled {
		why = "its crawl stalled under the lease"
	}
	if err := b.cfg.Forfeit(t.Holder, why); err != nil {
		b.cfg.Logger.Warn("Cannot record a lapsed lease against its holder", "task", t.ID, "peer", t.Holder, "err", err)
		return
	}
	b.cfg.Logger.Info("Volunteer's standing reset: "+why, "task", t.ID, "host", t.Host, "peer", t.Holder)
}

// checkInterval is a spot-check task's interval when its channel has none
// yet: it bounds when the task must start and when it counts lost.
const checkInterval = time.Hour

// IssueCheck issues a spot-check task for the storage module: it
// re-fetches urls, a sample of the result of task of, with the operator's
// politeness, and goes through its host's lease like any task, so it never
// runs beside another crawler of the host. It is sent to a member not in
// avoid.
func (b *Book) IssueCheck(_ context.Context, of string, urls []string, avoid []string) (string, error) {
	orig, err := b.cfg.DB.Task(of)
	if err != nil {
		return "", err
	}
	now := b.cfg.Now()
	iv := checkInterval
	if c, err := b.cfg.DB.Get(orig.Channel); err == nil {
		if v, ok := b.cfg.Schedule.Interval(c.Index); ok && v > 0 {
			iv = v
		}
	}
	sum := sha256.Sum256([]byte(of))
	spec := task.Task{
		ID:       fmt.Sprintf(channels.CheckPrefix+"%x/%d", sum[:12], now.UnixNano()),
		Channel:  orig.Channel,
		Seeds:    urls,
		MaxDepth: 0,
		MaxPages: len(urls),
		Delay:    task.Duration(b.cfg.Delay),
		Interval: task.Duration(iv),
		Issued:   now,
		// The manager chose its checker (dispatch.CheckAim): a peer it
		// is passed on to may be the crawler it checks or its twin.
		Pinned: true,
	}
	if err := spec.Validate(); err != nil {
		return "", fmt.Errorf("spot-check of task %s: %w", of, err)
	}
	raw, err := spec.Encode()
	if err != nil {
		return "", err
	}
	rec := channels.Task{ID: spec.ID, Channel: orig.Channel, Issued: now, Deadline: now.Add(2*iv + b.cfg.Slack),
		Spec: raw, Host: spec.Host(), Checks: of, Avoid: avoid}
	if err := b.cfg.DB.IssueCheck(rec); err != nil {
		return "", err
	}
	b.cfg.Counts.CheckIssued()
	b.cfg.Logger.Info("Spot-check issued", "task", spec.ID, "checks", of, "pages", len(urls))
	return spec.ID, nil
}
