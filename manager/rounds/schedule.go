package rounds

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
)

// Strategy names accepted by Options.Strategy.
const (
	StrategyFixed      = "fixed"
	StrategyIIR        = "iir"
	StrategyICR        = "icr"
	StrategyController = "controller"
)

// Meta keys in the channel database.
const (
	metaStrategy  = "strategy"
	metaIntervals = "intervals"
)

// maxHistory bounds the interval history kept for the chart.
const maxHistory = 500

// Options configure a Schedule; the manager's Options hold them, with
// their defaults applied.
type Options struct {
	// Strategy is one of the Strategy names; Recrawl tunes it.
	Strategy string
	Recrawl  recrawl.Config
	// PieceAbove is the page count above which a host's round is split
	// into Pieces tasks (sched/pieces).
	PieceAbove, Pieces int
	// Delay is the operator's least politeness wait, which every task
	// keeps; Slack is added to a task's deadline (issue time plus twice
	// its interval).
	Delay, Slack time.Duration
	Logger       *slog.Logger
	// Issued is told how many tasks each round issued; may be nil.
	Issued func(n int)
}

// Schedule is the recrawl strategy over the channels of one channel
// database. Its methods are safe for concurrent use.
type Schedule struct {
	db   *channels.DB
	opts Options
	log  *slog.Logger

	mu    sync.Mutex // guards the fields below
	strat recrawl.Strategy
	n     int  // channels the strategy knows
	dirty bool // strategy changed since last saved
}

// New builds the schedule over db's channels at now and restores the
// strategy's saved state.
func New(db *channels.DB, opts Options, now time.Time) (*Schedule, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if _, err := newStrategy(opts.Strategy, []recrawl.Channel{{ChangeInterval: time.Hour}}, opts.Recrawl, now); err != nil {
		return nil, err
	}
	s := &Schedule{db: db, opts: opts, log: opts.Logger}
	if err := s.load(now); err != nil {
		return nil, err
	}
	return s, nil
}

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

// load ranks the channels into priority groups by their change
// intervals, builds the strategy over them and restores its saved state.
func (s *Schedule) load(now time.Time) error {
	all, err := s.db.All(0)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(all) == 0 {
		s.strat, s.n = nil, 0
		return nil
	}
	ivs := make([]time.Duration, len(all))
	for i, c := range all {
		ivs[i] = c.ChangeInterval
	}
	groups := recrawl.Rank(ivs, s.opts.Recrawl.Groups)
	if err := s.db.SetGroups(groups); err != nil {
		return err
	}
	chs := make([]recrawl.Channel, len(all))
	for i, c := range all {
		chs[i] = recrawl.Channel{Group: groups[i], ChangeInterval: c.ChangeInterval}
	}
	strat, err := newStrategy(s.opts.Strategy, chs, s.opts.Recrawl, now)
	if err != nil {
		return err
	}
	var snap recrawl.Snapshot
	if found, err := s.db.GetMeta(metaStrategy, &snap); err != nil {
		return err
	} else if found {
		if p, ok := strat.(recrawl.Persistent); ok {
			if err := p.Restore(snap); err != nil {
				s.log.Warn("Saved strategy state does not fit; starting afresh", "err", err)
			}
		}
	}
	s.strat, s.n = strat, len(all)
	return s.recordIntervalsLocked(now)
}

// Sync adds the channels created since the strategy was built.
func (s *Schedule) Sync(now time.Time) error {
	s.mu.Lock()
	known, has := s.n, s.strat != nil
	s.mu.Unlock()
	if !has {
		n, err := s.db.Count()
		if err != nil || n == 0 {
			return err
		}
		return s.load(now)
	}
	added, err := s.db.All(known)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range added {
		if c.Index != s.n {
			return fmt.Errorf("channel %s has index %d, strategy expected %d", c.ID, c.Index, s.n)
		}
		if _, err := s.strat.Add(recrawl.Channel{Group: c.Group, ChangeInterval: c.ChangeInterval}); err != nil {
			return fmt.Errorf("add channel %s to the strategy: %w", c.ID, err)
		}
		s.n++
		s.dirty = true
	}
	return nil
}

// Reassign runs the strategy's reassignment when due and ranks the
// channels again.
func (s *Schedule) Reassign(now time.Time) error {
	s.mu.Lock()
	if s.strat == nil || !s.strat.Due(now) {
		s.mu.Unlock()
		return nil
	}
	ivs := s.strat.Reassign(now)
	s.dirty = true
	s.mu.Unlock()
	s.log.Info("Recrawl intervals reassigned", "intervals", fmt.Sprint(ivs))
	s.Save()
	return s.load(now)
}

// Interval returns channel idx's recrawl interval; ok is false while the
// strategy does not know the channel (added since the last Sync).
func (s *Schedule) Interval(idx int) (iv time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.strat == nil || idx >= s.n {
		return 0, false
	}
	return s.strat.Interval(idx), true
}

// Intervals returns each priority group's recrawl interval.
func (s *Schedule) Intervals() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.strat == nil {
		return nil
	}
	return s.strat.Intervals()
}

// History returns the groups' intervals each time they changed, oldest
// first (at most maxHistory).
func (s *Schedule) History() ([]operator.IntervalPoint, error) {
	var hist []operator.IntervalPoint
	_, err := s.db.GetMeta(metaIntervals, &hist)
	return hist, err
}

// Succeeded counts a succeeded round of channel idx.
func (s *Schedule) Succeeded(idx int, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.strat != nil && idx < s.n {
		s.strat.Succeeded(idx, now)
		s.dirty = true
	}
}

// Failed counts a failed round of channel idx, for reason f.
func (s *Schedule) Failed(idx int, f recrawl.Failure, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.strat != nil && idx < s.n {
		s.strat.Failed(idx, f, now)
		s.dirty = true
	}
}

// dueBounds returns, for each priority group, the shortest recrawl
// interval of its channels: none of them is due sooner after its last
// round (channels.DB.Due). A group without channels gets 0.
func (s *Schedule) dueBounds() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var bounds []time.Duration
	for i := range s.n {
		g := s.strat.Group(i)
		for len(bounds) <= g {
			bounds = append(bounds, -1)
		}
		if iv := s.strat.Interval(i); bounds[g] < 0 || iv < bounds[g] {
			bounds[g] = iv
		}
	}
	for g, b := range bounds {
		bounds[g] = max(b, 0)
	}
	return bounds
}

// Save stores the strategy's state when it changed.
func (s *Schedule) Save() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.strat == nil || !s.dirty {
		return
	}
	p, ok := s.strat.(recrawl.Persistent)
	if !ok {
		return
	}
	if err := s.db.PutMeta(metaStrategy, p.Snapshot()); err != nil {
		s.log.Warn("Strategy state not saved", "err", err)
		return
	}
	s.dirty = false
}

// recordIntervalsLocked appends the groups' intervals to the history when
// they changed.
func (s *Schedule) recordIntervalsLocked(now time.Time) error {
	var hist []operator.IntervalPoint
	if _, err := s.db.GetMeta(metaIntervals, &hist); err != nil {
		return err
	}
	cur := s.strat.Intervals()
	if n := len(hist); n > 0 && slices.Equal(hist[n-1].Intervals, cur) {
		return nil
	}
	hist = append(hist, operator.IntervalPoint{Time: now, Intervals: cur})
	if len(hist) > maxHistory {
		hist = hist[len(hist)-maxHistory:]
	}
	return s.db.PutMeta(metaIntervals, hist)
}
