package recrawl

import (
	"fmt"
	"time"
)

// Channel is what a strategy needs to know about one channel.
type Channel struct {
	// Group is the channel's priority group, 0 = fastest-changing.
	Group int `json:"group"`
	// ChangeInterval is the channel's (estimated) change interval: FIXED's
	// recrawl interval and the reference of the cap.
	ChangeInterval time.Duration `json:"change_interval"`
}

// Failure says why a submitted task brought no update.
type Failure int

const (
	// FailExpired: the task waited in a crawler's queue longer than its
	// recrawl interval and was cancelled. Load-dependent.
	FailExpired Failure = iota + 1
	// FailRefused: every queue the task was offered to was full.
	// Load-dependent.
	FailRefused
	// FailLost: the task vanished without a report (its crawler crashed);
	// the manager learns it by a timeout. Not load-dependent.
	FailLost
)

// LoadDependent reports whether f is a failure caused by the swarm's load,
// which crawlers report, as opposed to a loss to a crash.
func (f Failure) LoadDependent() bool { return f == FailExpired || f == FailRefused }

// String names the failure.
func (f Failure) String() string {
	switch f {
	case FailExpired:
		return "expired"
	case FailRefused:
		return "refused"
	case FailLost:
		return "lost"
	}
	return fmt.Sprintf("Failure(%d)", int(f))
}

// History is one channel's record since the last reassignment (paper 000
// §3.1), plus the split of failures design.md §9 requires.
type History struct {
	// SubCount is hSubCount: tasks submitted.
	SubCount int `json:"sub_count"`
	// SucCount is hSucCount: updates (successful recrawls).
	SucCount int `json:"suc_count"`
	// LoadFailures counts tasks cancelled for waiting too long or refused
	// by full queues.
	LoadFailures int `json:"load_failures"`
	// LostFailures counts tasks lost without report.
	LostFailures int `json:"lost_failures"`
	// GapSum and Gaps give hInterval, the mean gap between consecutive
	// updates. The gap from the last update before the reassignment to the
	// first one after it counts in the new period.
	GapSum time.Duration `json:"gap_sum"`
	Gaps   int           `json:"gaps"`
	// LastUpdate is the time of the latest update ever (zero if none); it
	// survives reassignments.
	LastUpdate time.Time `json:"last_update"`
}

// Interval returns hInterval, the mean gap between updates, and false when
// fewer than one gap was seen.
func (h History) Interval() (time.Duration, bool) {
	if h.Gaps == 0 {
		return 0, false
	}
	return h.GapSum / time.Duration(h.Gaps), true
}

// tracker is the state every strategy shares: channels, their histories, the
// groups' intervals and the trigger. Intervals are kept in float64
// nanoseconds so repeated multiplications do not accumulate rounding.
type tracker struct {
	cfg       Config
	channels  []Channel
	hist      []History
	size      []int     // channels per group
	changeSum []float64 // Σ change interval per group, ns
	interval  []float64 // current interval per group, ns
	lastRate  []float64 // success rate per group at the last reassignment, 0 at first as in the paper
	ready     int       // fastest-group channels past the trigger's update count
	last      time.Time // last reassignment (or the start)
	rounds    int       // reassignments done
}

// newTracker validates channels and sets each group's initial interval to
// its channels' mean change interval (design.md §6). An empty group gets
// twice the interval of the faster group before it (half the next slower
// one's when it is the fastest).
func newTracker(channels []Channel, cfg Config, start time.Time) (*tracker, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(channels) == 0 {
		return nil, ErrNoChannels
	}
	k := cfg.Groups
	t := &tracker{
		cfg:       cfg,
		channels:  make([]Channel, 0, len(channels)),
		hist:      make([]History, 0, len(channels)),
		size:      make([]int, k),
		changeSum: make([]float64, k),
		interval:  make([]float64, k),
		lastRate:  make([]float64, k),
		last:      start,
	}
	for i, c := range channels {
		if err := t.check(c); err != nil {
			return nil, fmt.Errorf("channel %d: %w", i, err)
		}
		t.channels = append(t.channels, c)
		t.hist = append(t.hist, History{})
		t.size[c.Group]++
		t.changeSum[c.Group] += float64(c.ChangeInterval)
	}
	first := -1
	for p := range k {
		if t.size[p] > 0 {
			t.interval[p] = t.changeSum[p] / float64(t.size[p])
			if first < 0 {
				first = p
			}
		}
	}
	for p := first - 1; p >= 0; p-- {
		t.interval[p] = t.interval[p+1] / 2
	}
	for p := first + 1; p < k; p++ {
		if t.size[p] == 0 {
			t.interval[p] = t.interval[p-1] * 2
		}
	}
	return t, nil
}

func (t *tracker) check(c Channel) error {
	if c.Group < 0 || c.Group >= t.cfg.Groups {
		return fmt.Errorf("%w: group %d not in 0…%d", ErrBadChannel, c.Group, t.cfg.Groups-1)
	}
	if c.ChangeInterval <= 0 {
		return fmt.Errorf("%w: change interval %v not positive", ErrBadChannel, c.ChangeInterval)
	}
	return nil
}

// Add appends a channel and returns its index. A channel added to a group
// that was empty does not change that group's interval.
func (t *tracker) Add(c Channel) (int, error) {
	if err := t.check(c); err != nil {
		return 0, err
	}
	t.channels = append(t.channels, c)
	t.hist = append(t.hist, History{})
	t.size[c.Group]++
	t.changeSum[c.Group] += float64(c.ChangeInterval)
	return len(t.channels) - 1, nil
}

// top returns the fastest non-empty group.
func (t *tracker) top() int {
	for p, n := range t.size {
		if n > 0 {
			return p
		}
	}
	return 0
}

// Submitted records a task submitted for channel ch.
func (t *tracker) Submitted(ch int, _ time.Time) { t.hist[ch].SubCount++ }

// Succeeded records an update of channel ch at now.
func (t *tracker) Succeeded(ch int, now time.Time) {
	h := &t.hist[ch]
	h.SucCount++
	if !h.LastUpdate.IsZero() && now.After(h.LastUpdate) {
		h.GapSum += now.Sub(h.LastUpdate)
		h.Gaps++
	}
	h.LastUpdate = now
	if h.SucCount == t.cfg.TriggerUpdates+1 && t.channels[ch].Group == t.top() {
		t.ready++
	}
}

// Failed records a task of channel ch that brought no update.
func (t *tracker) Failed(ch int, why Failure, _ time.Time) {
	if why.LoadDependent() {
		t.hist[ch].LoadFailures++
	} else {
		t.hist[ch].LostFailures++
	}
}

// History returns channel ch's record since the last reassignment.
func (t *tracker) History(ch int) History { return t.hist[ch] }

// Channels returns the number of channels.
func (t *tracker) Channels() int { return len(t.channels) }

// Rounds returns the number of reassignments done so far.
func (t *tracker) Rounds() int { return t.rounds }

// triggered reports whether the paper's trigger holds: TriggerShare of the
// fastest group's channels completed more than TriggerUpdates updates.
func (t *tracker) triggered() bool {
	n := t.size[t.top()]
	return n > 0 && float64(t.ready) >= t.cfg.TriggerShare*float64(n)
}

// overdue reports whether maxPeriod has passed since the last reassignment.
func (t *tracker) overdue(now time.Time, maxPeriod time.Duration) bool {
	return maxPeriod > 0 && now.Sub(t.last) >= maxPeriod
}

// Intervals returns every group's current interval, fastest first.
func (t *tracker) Intervals() []time.Duration {
	out := make([]time.Duration, len(t.interval))
	for p, v := range t.interval {
		out[p] = time.Duration(v + 0.5)
	}
	return out
}

// Group returns channel ch's priority group.
func (t *tracker) Group(ch int) int { return t.channels[ch].Group }

// Interval returns channel ch's recrawl interval: its group's, raised to
// half its change interval when the cap is on.
func (t *tracker) Interval(ch int) time.Duration {
	c := t.channels[ch]
	v := t.interval[c.Group]
	if t.cfg.Cap {
		v = max(v, float64(c.ChangeInterval)/2)
	}
	return time.Duration(v + 0.5)
}

// groupStats sums the histories of each group.
type groupStats struct {
	sub, suc, load, lost int
	hSum                 float64 // Σ hInterval over channels with one gap or more, ns
	hN                   int
}

func (t *tracker) stats() []groupStats {
	g := make([]groupStats, len(t.interval))
	for i, h := range t.hist {
		s := &g[t.channels[i].Group]
		s.sub += h.SubCount
		s.suc += h.SucCount
		s.load += h.LoadFailures
		s.lost += h.LostFailures
		if h.Gaps > 0 {
			s.hSum += float64(h.GapSum) / float64(h.Gaps)
			s.hN++
		}
	}
	return g
}

// rate returns the group's success rate under the configured counting rule
// and false when nothing was submitted.
func (t *tracker) rate(s groupStats) (float64, bool) {
	suc := s.suc
	if t.cfg.Counting == CountLoadOnly {
		suc += s.lost
	}
	if s.sub == 0 {
		return 0, false
	}
	return min(1, float64(suc)/float64(s.sub)), true
}

// encourage multiplies next[p] by 1−δ for every group whose success rate
// beat the last reassignment's, and remembers the rates (paper 000 §3.1).
// A group with no submissions neither is encouraged nor forgets its rate.
func (t *tracker) encourage(next []float64, g []groupStats) {
	for p := range next {
		r, ok := t.rate(g[p])
		if !ok {
			continue
		}
		if r > t.lastRate[p] {
			next[p] *= 1 - t.cfg.Encourage
		}
		t.lastRate[p] = r
	}
}

// capGroups raises every group's interval to half its channels' mean change
// interval.
func (t *tracker) capGroups(next []float64) {
	for p := range next {
		if t.size[p] > 0 {
			next[p] = max(next[p], t.changeSum[p]/float64(t.size[p])/2)
		}
	}
}

// commit installs next as the groups' intervals and starts a new period.
func (t *tracker) commit(next []float64, now time.Time) []time.Duration {
	if t.cfg.Cap {
		t.capGroups(next)
	}
	copy(t.interval, next)
	for i := range t.hist {
		last := t.hist[i].LastUpdate
		t.hist[i] = History{LastUpdate: last}
	}
	t.ready = 0
	t.last = now
	t.rounds++
	return t.Intervals()
}

// CheckPriorities enforces the groups' order in place (paper 000 §3.1),
// walking from the fastest group: a slower group whose interval is shorter
// than the faster one before it gets that one's × sigma, and no group gets
// more than the one before it × mu.
func CheckPriorities(intervals []float64, sigma, mu float64) {
	for p := 1; p < len(intervals); p++ {
		if intervals[p] < intervals[p-1] {
			intervals[p] = intervals[p-1] * sigma
		}
		if upper := intervals[p-1] * mu; intervals[p] > upper {
			intervals[p] = upper
		}
	}
}
