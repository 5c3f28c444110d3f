package manager

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Tick runs one round of the schedule (see the package documentation).
// Serve calls it every Options.Schedule.Tick; tests call it directly.
func (m *Manager) Tick(ctx context.Context) (err error) {
	// The round's duration is real time, whatever clock Options.Now is.
	start := time.Now()
	defer func() { m.metrics.RoundDone(time.Since(start), err) }()
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
	if err := m.book.Expire(now); err != nil {
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

// sampleThroughput samples the storage totals for the status page when a
// sample is due.
func (m *Manager) sampleThroughput(now time.Time) error {
	if !m.thru.Due(now) {
		return nil
	}
	t, err := m.store.Totals()
	if err != nil {
		return fmt.Errorf("sample throughput: %w", err)
	}
	m.thru.Sample(now, t.Pages, int64(t.Uploads))
	return nil
}
