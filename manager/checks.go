package manager

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/task"
)

// checkInterval is a spot-check task's interval when its channel has none
// yet: it bounds when the task must start and when it counts lost.
const checkInterval = time.Hour

// IssueCheck issues a spot-check task for the storage module: it
// re-fetches urls, a sample of the result of task of, with the operator's
// politeness, and goes through its host's lease like any task, so it never
// runs beside another crawler of the host. It is sent to a member not in
// avoid.
func (b book) IssueCheck(_ context.Context, of string, urls []string, avoid []string) (string, error) {
	m := b.m
	orig, err := m.db.Task(of)
	if err != nil {
		return "", err
	}
	now := m.opts.Now()
	iv := checkInterval
	if c, err := m.db.Get(orig.Channel); err == nil {
		if v, ok := m.sched.Interval(c.Index); ok && v > 0 {
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
		Delay:    task.Duration(m.opts.Politeness.Delay),
		Interval: task.Duration(iv),
		Issued:   now,
	}
	if err := spec.Validate(); err != nil {
		return "", fmt.Errorf("spot-check of task %s: %w", of, err)
	}
	raw, err := spec.Encode()
	if err != nil {
		return "", err
	}
	rec := channels.Task{ID: spec.ID, Channel: orig.Channel, Issued: now, Deadline: now.Add(2*iv + m.opts.Schedule.Slack),
		Spec: raw, Host: spec.Host(), Checks: of, Avoid: avoid}
	if err := m.db.IssueCheck(rec); err != nil {
		return "", err
	}
	m.metrics.issued.WithLabelValues(kindCheck).Inc()
	m.log.Info("Spot-check issued", "task", spec.ID, "checks", of, "pages", len(urls))
	return spec.ID, nil
}

// resultFailed is told when a peer's result failed its spot-checks: from
// the operator's strike limit on, the peer's request-signing key is
// withdrawn, so it is granted no lease and web sites see its requests as
// unverified.
func (m *Manager) resultFailed(p string, failures int, withdraw bool) {
	m.log.Warn("A result failed validation", "peer", p, "failures", failures)
	if !withdraw {
		return
	}
	if err := m.WithdrawKey(p, fmt.Sprintf("%d results failed validation", failures)); err != nil {
		m.log.Warn("Key not withdrawn", "peer", p, "err", err)
	}
}
