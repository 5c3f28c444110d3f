package recrawl

import "time"

// IIR is paper 000's Iterated Interval Reassignment (§3.1): each group's new
// interval is the mean of its channels' hInterval (mean gap between
// updates), shortened by the encourage rate δ when the group's success rate
// beat the last reassignment's, then ordered by CheckPriorities.
//
// A channel with fewer than two updates since before the last reassignment
// has no hInterval and is left out of its group's mean; a group where no
// channel has one keeps its interval (before encourage and ordering). The
// reassignment is due when the paper's trigger holds (Config.TriggerShare
// of the fastest group past Config.TriggerUpdates updates) or after
// Config.MaxPeriod.
type IIR struct{ *tracker }

// NewIIR returns the IIR strategy over channels, starting at start.
func NewIIR(channels []Channel, cfg Config, start time.Time) (*IIR, error) {
	t, err := newTracker(channels, cfg, start)
	if err != nil {
		return nil, err
	}
	return &IIR{t}, nil
}

// Due reports whether the trigger holds or Config.MaxPeriod has passed.
func (s *IIR) Due(now time.Time) bool {
	return s.triggered() || s.overdue(now, s.cfg.MaxPeriod)
}

// Reassign runs InheritedIntervalReassignment and installs the result.
func (s *IIR) Reassign(now time.Time) []time.Duration {
	g := s.stats()
	next := make([]float64, len(s.interval))
	for p := range next {
		if g[p].hN > 0 {
			next[p] = g[p].hSum / float64(g[p].hN)
		} else {
			next[p] = s.interval[p]
		}
	}
	s.encourage(next, g)
	CheckPriorities(next, s.cfg.SmallestMultiple, s.cfg.BiggestMultiple)
	return s.commit(next, now)
}
