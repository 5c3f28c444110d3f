package manager

import (
	"context"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
)

// book is the manager's task book as the storage module sees it: results
// go to the channel database and the strategy.
type book struct{ m *Manager }

var _ storage.Tasks = book{}

// The channel database keeps the opt-out list storage refuses uploads by.
var _ storage.OptOuts = (*channels.DB)(nil)

// Task returns the record of an issued task.
func (b book) Task(id string) (channels.Task, error) { return b.m.db.Task(id) }

// Complete records a result and counts a succeeded round.
func (b book) Complete(_ context.Context, id, peer string, fb channels.Feedback) (channels.Outcome, error) {
	m := b.m
	now := m.opts.Now()
	out, err := m.db.Complete(id, peer, fb, now)
	if err != nil || !out.First {
		return out, err
	}
	m.metrics.completed.WithLabelValues(taskKind(out.Task)).Inc()
	m.metrics.pushBack(fb)
	if out.RoundDone && out.RoundOK {
		m.sched.Succeeded(out.Channel.Index, now)
	}
	return out, nil
}

// countReport records a crawler's report that it cancelled a task: the
// envelope must be one this manager signed, and the task still open. A
// round it ends without a result is a load-dependent failure for the
// strategy (design.md §9).
func (m *Manager) countReport(_ context.Context, from peer.ID, r report.Report) (bool, error) {
	t, err := envelope.Open(r.Task, m.key.GetPublic())
	if err != nil {
		return false, fmt.Errorf("refused: %w", err)
	}
	now := m.opts.Now()
	// The report's reason is the task's: report.HandedBack is
	// channels.ReasonHandedBack, which the channel does not count as a
	// failure (TestHandedBackReissuedAtOnce holds them together).
	l, ok, err := m.db.Cancel(t.ID, t.Lease.Epoch, from.String(), r.Reason, now)
	if err != nil || !ok {
		return false, err
	}
	m.log.Info("Task cancelled by a crawler", "task", t.ID, "peer", from, "reason", r.Reason)
	m.metrics.cancelled.WithLabelValues(taskKind(l.Task), r.Reason).Inc()
	switch {
	case !l.RoundDone || r.Reason == report.HandedBack:
		// A task handed back is no failure of its round: the channel
		// is due again at once (channels.ReasonHandedBack).
	case l.RoundOK:
		m.sched.Succeeded(l.ChannelIndex, now)
	case r.Reason == report.Refused:
		m.sched.Failed(l.ChannelIndex, recrawl.FailRefused, now)
	default:
		m.sched.Failed(l.ChannelIndex, recrawl.FailExpired, now)
	}
	return true, nil
}
