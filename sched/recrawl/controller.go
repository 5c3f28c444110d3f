package recrawl

import "time"

// Controller is the simple load controller of design.md §9, the figure IIR and
// ICR have to beat: at every reassignment it shortens all intervals by the
// encourage rate δ while load-dependent failures (expired or refused tasks)
// stay under Config.ShortenBelow of submissions, lengthens them by 1/(1−δ)
// when they exceed Config.LengthenAbove, and otherwise leaves them alone.
// No interval goes below half its channels' change interval (the cap is
// always on). Tasks lost to crashes do not count: resubmission handles them.
//
// Besides the paper's trigger it is due (Config.TriggerUpdates+1) × its
// fastest interval after the last reassignment (or Config.MaxPeriod when
// set), so that an overloaded swarm, whose fastest group never completes
// enough updates, still gets its intervals lengthened.
type Controller struct{ *tracker }

// NewController returns the controller over channels, starting at start.
func NewController(channels []Channel, cfg Config, start time.Time) (*Controller, error) {
	cfg.Cap = true
	t, err := newTracker(channels, cfg, start)
	if err != nil {
		return nil, err
	}
	return &Controller{t}, nil
}

// Due reports whether the trigger holds or the period has passed.
func (s *Controller) Due(now time.Time) bool {
	period := s.cfg.MaxPeriod
	if period == 0 {
		period = time.Duration(float64(s.cfg.TriggerUpdates+1) * s.interval[s.top()])
	}
	return s.triggered() || s.overdue(now, period)
}

// Reassign scales every interval by the load-dependent failure ratio.
func (s *Controller) Reassign(now time.Time) []time.Duration {
	sub, load := 0, 0
	for _, h := range s.hist {
		sub += h.SubCount
		load += h.LoadFailures
	}
	factor := 1.0
	if sub > 0 {
		switch ratio := float64(load) / float64(sub); {
		case ratio < s.cfg.ShortenBelow:
			factor = 1 - s.cfg.Encourage
		case ratio > s.cfg.LengthenAbove:
			factor = 1 / (1 - s.cfg.Encourage)
		}
	}
	next := make([]float64, len(s.interval))
	for p, v := range s.interval {
		next[p] = v * factor
	}
	return s.commit(next, now)
}
