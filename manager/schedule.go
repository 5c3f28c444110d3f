package manager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/submit"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/task"
)

// sendTimeout bounds one attempt to hand a task to the overlay.
const sendTimeout = 15 * time.Second

// unansweredResends is how many times a task whose send got no answer is
// sent again, each under a new lease epoch, before the manager leaves it
// to its start window (channels.DB.MarkUnanswered).
const unansweredResends = 2

// Tick runs one round of the schedule (see the package documentation).
// Serve calls it every Options.Tick; tests call it directly.
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
	if err := m.send(ctx); err != nil {
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
// over (Options.RestartGrace).
func (m *Manager) expire(now time.Time) error {
	if now.Before(m.started.Add(m.opts.RestartGrace)) {
		return nil
	}
	lost, err := m.db.Expire(now, m.opts.ClockSkew)
	if err != nil {
		return err
	}
	for _, l := range lost {
		m.forfeit(l.Task) // a write to storage's index: not under m.mu
	}
	for _, l := range lost {
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

// awayFromLapse aims task id at a member other than the peer that let
// its host's lease lapse (channels.LapseMemory), when one did: that peer
// may own the host's zone and would be sent each of its tasks in turn.
// The member is chosen as a spot-check's is (checkAim), so never one
// linked to the lapsed peer either.
func (m *Manager) awayFromLapse(id, host string, now time.Time) (submit.Aim, bool) {
	lapsed, err := m.db.Lapsed(host, now)
	if err != nil || lapsed == "" {
		return submit.Aim{}, false
	}
	aim, ok := m.checkAim(channels.Task{ID: id, Avoid: []string{lapsed}})
	if ok {
		m.log.Info("Task aimed at another member: the host's last holder let its lease lapse", "task", id, "host", host, "lapsed", lapsed, "to", aim.Direct)
	}
	return aim, ok
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

// sendHosts bounds how many hosts' tasks send hands to the overlay at
// once. A submission can take up to sendTimeout (a busy or departed
// peer); sent one after another, a few slow ones held up every other
// host's task, and the rest of the schedule, for minutes.
const sendHosts = 8

// send hands the tasks not yet sent to the overlay, each once its host's
// lease is granted: at most one lease per host can be live, so the tasks
// of one host (its channels, the pieces of a large one) go one after
// another, never to two crawlers at once. Different hosts' tasks go in
// parallel (sendHosts).
func (m *Manager) send(ctx context.Context) error {
	open, err := m.db.Open()
	if err != nil {
		return err
	}
	var (
		byHost = map[string][]channels.Task{}
		hosts  []string // in the order of their first open task
	)
	for _, t := range open {
		if t.Sent || !m.mine(cmp.Or(t.Channel, t.ID)) {
			continue
		}
		if t.Sending && t.Holder != "" {
			// The manager stopped while sending it, and a crawler has
			// claimed it since: it was delivered.
			m.log.Info("Task was being sent when the manager stopped and is claimed; not sending it again", "task", t.ID, "holder", t.Holder)
			if err := m.db.MarkSent(t.ID, ""); err != nil {
				return err
			}
			continue
		}
		// A task the manager stopped while sending, or whose send got
		// no answer, and nobody claimed, is sent again under a new lease
		// epoch (sendOne): a copy the overlay may hold can no longer
		// claim the host. Left alone, it would wait for its lease to
		// lapse (Options.StartWithin).
		if len(t.Spec) == 0 {
			continue
		}
		key := cmp.Or(t.Host, t.ID)
		if _, ok := byHost[key]; !ok {
			hosts = append(hosts, key)
		}
		byHost[key] = append(byHost[key], t)
	}
	// stop is set once no overlay peer can take tasks now, or a send
	// failed in a way the next tick must see first.
	var (
		stop atomic.Bool
		g    errgroup.Group
	)
	g.SetLimit(sendHosts)
	for _, h := range hosts {
		if stop.Load() {
			break
		}
		g.Go(func() error {
			for _, t := range byHost[h] {
				if stop.Load() {
					return nil
				}
				if s, err := m.sendOne(ctx, t); s || err != nil {
					stop.Store(true)
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// sendOne grants task t its host's lease, signs it and hands it to the
// overlay. stop is set when no overlay peer can take tasks now.
func (m *Manager) sendOne(ctx context.Context, t channels.Task) (stop bool, err error) {
	spec, err := task.Decode(t.Spec)
	if err != nil {
		return false, fmt.Errorf("task %s: %w", t.ID, err)
	}
	now := m.opts.Now()
	var check submit.Aim
	if t.Checks != "" {
		// A spot-check goes to a volunteer that did not crawl the result.
		var ok bool
		if check, ok = m.checkAim(t); !ok {
			m.log.Debug("No other volunteer to run a spot-check yet", "task", t.ID)
			return false, nil
		}
	}
	if t.Checks == "" && !m.sub.Ready(ctx, t.Host) {
		m.log.Debug("Task waits for its host to be located", "task", t.ID, "host", t.Host)
		return false, nil
	}
	grant := m.db.Grant
	if t.Sending {
		grant = m.db.Regrant
	}
	g, ok, err := grant(t.ID, now, m.opts.leaseTimes(time.Duration(spec.Interval)))
	if errors.Is(err, channels.ErrNotGrantable) {
		// Claimed since the open tasks were read (it was delivered, by a
		// send cut short or one told it failed), or ended.
		m.log.Debug("Task claimed or ended since the round began; not sending it", "task", t.ID, "err", err)
		if t.Sending {
			return false, m.db.MarkSent(t.ID, "")
		}
		return false, nil
	}
	if err != nil || !ok {
		return false, err
	}
	switch {
	case t.Sending && t.Unanswered > 0:
		m.log.Info("Task sent without an answer is not claimed; sending it again under a new lease epoch", "task", t.ID, "old_epoch", t.Epoch, "epoch", g.Epoch)
	case t.Sending:
		m.log.Info("Task was being sent when the manager stopped; sending it again under a new lease epoch", "task", t.ID, "old_epoch", t.Epoch, "epoch", g.Epoch)
	}
	aim := check
	if t.Checks == "" {
		aim = m.sub.Aim(ctx, g.Host)
		if away, ok := m.awayFromLapse(t.ID, g.Host, now); ok {
			aim = away
		}
	}
	spec.Issued = now
	spec.Lease = task.Lease{Host: g.Host, Epoch: g.Epoch, Expires: g.StartBy}
	spec.Target = aim.Target
	spec.Policy = m.opts.Policy
	spec.Raw = m.opts.StoreRaw && t.Checks == "" // a spot-check stores nothing
	env, err := envelope.Seal(spec, m.key)
	if err != nil {
		return false, fmt.Errorf("sign task %s: %w", t.ID, err)
	}
	if err := m.db.Signed(t.ID, env); err != nil {
		return false, err
	}
	sctx, cancel := context.WithTimeout(ctx, sendTimeout)
	owner, err := m.sub.Submit(sctx, aim, env)
	cancel()
	switch {
	case err == nil:
		m.mu.Lock()
		m.sentOK++
		m.mu.Unlock()
		m.log.Debug("Task sent", "task", t.ID, "owner", owner, "epoch", g.Epoch)
		return false, m.db.MarkSent(t.ID, owner.String())
	case errors.Is(err, submit.ErrUncertain):
		// The copy the overlay may hold is fenced out by the next epoch;
		// left alone, a copy lost with a departing peer held the host
		// until its start window passed and the channel's round was lost.
		n, merr := m.db.MarkUnanswered(t.ID)
		if merr != nil {
			return false, merr
		}
		if n <= unansweredResends {
			m.log.Info("Task sent without an answer; sending it again under a new lease epoch unless it is claimed first", "task", t.ID, "epoch", g.Epoch, "err", err)
			return false, nil
		}
		m.log.Info("Task sent without an answer again; leaving it to its start window", "task", t.ID, "sends", n, "err", err)
		return false, m.db.MarkSent(t.ID, "")
	default: // never delivered: granted and sent again at the next tick
		if err := m.db.MarkSending(t.ID, false); err != nil {
			return false, err
		}
		if errors.Is(err, submit.ErrNoEntryPeer) {
			m.log.Debug("No overlay peer to send tasks to yet")
			return true, nil
		}
		m.mu.Lock()
		m.sentFail++
		m.mu.Unlock()
		m.log.Info("Task not sent; retrying next round", "task", t.ID, "err", err)
		return false, nil
	}
}
