package manager

import (
	"context"
	"errors"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
)

// Tick runs one round of the schedule (see the package documentation).
// Serve calls it every Options.Schedule.Tick; tests call it directly.
func (m *Manager) Tick(ctx context.Context) (err error) {
	// The round's duration is real time, whatever clock Options.Now is.
	start := time.Now()
	defer func() { m.metrics.roundDone(time.Since(start), err) }()
	now := m.opts.Now()
	var errs []error
	if m.bounds != nil {
		if _, err := m.bounds.MaybeTrain(now, m.members.MemberInfos()); err != nil {
			errs = append(errs, err)
		}
	}
	if m.shared != nil {
		if err := m.shared.Sync(now); err != nil {
			errs = append(errs, err)
		}
	}
	if err := m.expire(now); err != nil {
		errs = append(errs, err)
	}
	if err := m.sched.Sync(now); err != nil {
		errs = append(errs, err)
	}
	if err := m.sched.Reassign(now); err != nil {
		errs = append(errs, err)
	}
	if err := m.sched.StartRounds(now, m.mine); err != nil {
		errs = append(errs, err)
	}
	if err := m.store.IssueChecks(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := m.dispatch.Send(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := m.sampleThroughput(now); err != nil {
		errs = append(errs, err)
	}
	m.sched.Save()
	return errors.Join(errs...)
}

// mine says whether channel is in this manager's share: always, unless
// it shares its database with other managers.
func (m *Manager) mine(channel string) bool { return m.shared == nil || m.shared.Mine(channel) }

// expire counts lost tasks and failed rounds, once the restart grace is
// over (Options.Leases.RestartGrace).
func (m *Manager) expire(now time.Time) error {
	if now.Before(m.started.Add(m.opts.Leases.RestartGrace)) {
		return nil
	}
	lost, err := m.db.Expire(now, m.opts.Leases.ClockSkew)
	if err != nil {
		return err
	}
	for _, l := range lost {
		m.forfeit(l.Task)
		m.log.Info("Task lost", "task", l.Task.ID, "sent", l.Task.Sent)
		m.metrics.lost.WithLabelValues(taskKind(l.Task)).Inc()
		switch {
		case !l.RoundDone:
		case l.RoundOK:
			m.sched.Succeeded(l.ChannelIndex, now)
		default:
			m.sched.Failed(l.ChannelIndex, recrawl.FailLost, now)
		}
	}
	return nil
}

// forfeit costs the holder of lost task t its standing when it let the
// lease lapse without a result: it stopped renewing, or its crawl
// stalled, and the host waited for it. A holder that released the task
// for an heir does not pay; nor one whose lease ended at its task's
// longest hold, as its result comes at once.
func (m *Manager) forfeit(t channels.Task) {
	if m.store == nil || t.Holder == "" || t.Released {
		return
	}
	why := "its lease lapsed without a result"
	if t.Stalled {
		why = "its crawl stalled under the lease"
	}
	if err := m.store.Forfeit(t.Holder, why); err != nil {
		m.log.Warn("Cannot record a lapsed lease against its holder", "task", t.ID, "peer", t.Holder, "err", err)
		return
	}
	m.log.Info("Volunteer's standing reset: "+why, "task", t.ID, "host", t.Host, "peer", t.Holder)
}
