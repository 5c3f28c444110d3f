package manager

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
)

// Meta keys in the channel database.
const (
	metaStrategy  = "strategy"
	metaIntervals = "intervals"
)

// maxHistory bounds the interval history kept for the chart.
const maxHistory = 500

func newStrategy(kind string, chs []recrawl.Channel, cfg recrawl.Config, now time.Time) (recrawl.Strategy, error) {
	switch kind {
	case StrategyFixed:
		return recrawl.NewFixed(chs, cfg, now)
	case StrategyIIR:
		return recrawl.NewIIR(chs, cfg, now)
	case StrategyICR:
		return recrawl.NewICR(chs, cfg, now)
	case StrategyController:
		return recrawl.NewController(chs, cfg, now)
	}
	return nil, fmt.Errorf("unknown strategy %q (want fixed, iir, icr or controller)", kind)
}

// loadStrategy ranks the channels into priority groups by their change
// intervals, builds the strategy over them and restores its saved state.
func (m *Manager) loadStrategy(now time.Time) error {
	all, err := m.db.All(0)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := newStrategy(m.opts.Strategy, []recrawl.Channel{{ChangeInterval: time.Hour}}, m.opts.Recrawl, now); err != nil {
		return err
	}
	if len(all) == 0 {
		m.strat, m.stratN = nil, 0
		return nil
	}
	ivs := make([]time.Duration, len(all))
	for i, c := range all {
		ivs[i] = c.ChangeInterval
	}
	groups := recrawl.Rank(ivs, m.opts.Recrawl.Groups)
	if err := m.db.SetGroups(groups); err != nil {
		return err
	}
	chs := make([]recrawl.Channel, len(all))
	for i, c := range all {
		chs[i] = recrawl.Channel{Group: groups[i], ChangeInterval: c.ChangeInterval}
	}
	s, err := newStrategy(m.opts.Strategy, chs, m.opts.Recrawl, now)
	if err != nil {
		return err
	}
	var snap recrawl.Snapshot
	if found, err := m.db.GetMeta(metaStrategy, &snap); err != nil {
		return err
	} else if found {
		if p, ok := s.(recrawl.Persistent); ok {
			if err := p.Restore(snap); err != nil {
				m.log.Warn("Saved strategy state does not fit; starting afresh", "err", err)
			}
		}
	}
	m.strat, m.stratN = s, len(all)
	return m.recordIntervalsLocked(now)
}

// syncChannels adds channels created since the strategy was built.
func (m *Manager) syncChannels(now time.Time) error {
	m.mu.Lock()
	known, has := m.stratN, m.strat != nil
	m.mu.Unlock()
	if !has {
		n, err := m.db.Count()
		if err != nil || n == 0 {
			return err
		}
		return m.loadStrategy(now)
	}
	added, err := m.db.All(known)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range added {
		if c.Index != m.stratN {
			return fmt.Errorf("channel %s has index %d, strategy expected %d", c.ID, c.Index, m.stratN)
		}
		if _, err := m.strat.Add(recrawl.Channel{Group: c.Group, ChangeInterval: c.ChangeInterval}); err != nil {
			return fmt.Errorf("add channel %s to the strategy: %w", c.ID, err)
		}
		m.stratN++
		m.dirty = true
	}
	return nil
}

// reassign runs the strategy's reassignment when due and re-ranks.
func (m *Manager) reassign(now time.Time) error {
	m.mu.Lock()
	if m.strat == nil || !m.strat.Due(now) {
		m.mu.Unlock()
		return nil
	}
	ivs := m.strat.Reassign(now)
	m.dirty = true
	m.mu.Unlock()
	m.log.Info("Recrawl intervals reassigned", "intervals", fmt.Sprint(ivs))
	m.saveStrategy()
	return m.loadStrategy(now)
}

// interval returns channel idx's recrawl interval.
func (m *Manager) interval(idx int) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.strat == nil || idx >= m.stratN {
		return 0, false
	}
	return m.strat.Interval(idx), true
}

// dueBounds returns, for each priority group, the shortest recrawl
// interval of its channels: none of them is due sooner after its last
// round (channels.DB.Due). A group without channels gets 0.
func (m *Manager) dueBounds() []time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	var bounds []time.Duration
	for i := range m.stratN {
		g := m.strat.Group(i)
		for len(bounds) <= g {
			bounds = append(bounds, -1)
		}
		if iv := m.strat.Interval(i); bounds[g] < 0 || iv < bounds[g] {
			bounds[g] = iv
		}
	}
	for g, b := range bounds {
		bounds[g] = max(b, 0)
	}
	return bounds
}

// saveStrategy stores the strategy's state when it changed.
func (m *Manager) saveStrategy() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.strat == nil || !m.dirty {
		return
	}
	p, ok := m.strat.(recrawl.Persistent)
	if !ok {
		return
	}
	if err := m.db.PutMeta(metaStrategy, p.Snapshot()); err != nil {
		m.log.Warn("Strategy state not saved", "err", err)
		return
	}
	m.dirty = false
}

// recordIntervalsLocked appends the groups' intervals to the history when
// they changed.
func (m *Manager) recordIntervalsLocked(now time.Time) error {
	var hist []operator.IntervalPoint
	if _, err := m.db.GetMeta(metaIntervals, &hist); err != nil {
		return err
	}
	cur := m.strat.Intervals()
	if n := len(hist); n > 0 && equalDurations(hist[n-1].Intervals, cur) {
		return nil
	}
	hist = append(hist, operator.IntervalPoint{Time: now, Intervals: cur})
	if len(hist) > maxHistory {
		hist = hist[len(hist)-maxHistory:]
	}
	return m.db.PutMeta(metaIntervals, hist)
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
