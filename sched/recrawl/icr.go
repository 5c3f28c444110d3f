package recrawl

import "time"

// ICR is paper 000's Iterated Capacity Reassignment (§3.2, equations
// reconstructed in design.md §9). Group p's interval is T_p = T0·A_p, where
// A_p is the ratio of its initial interval to the fastest group's (A_0 = 1,
// A_p = Π_{q<p} α_q; α = 2 for groups of 60, 120, … 960 minutes). At each
// reassignment the swarm's capacity is estimated as the updates completed
// since the last one, Ĉ = Σ hSucCount / Δt, and
//
//	T0' = (Σ_p N_p / A_p) / Ĉ
//
// is the base that lets the swarm just keep up (Σ_p N_p / T_p = Ĉ). Then
// each group is encouraged (× (1−δ) when its success rate rose) and the
// order is checked as in IIR. Under CountLoadOnly the tasks lost without
// report count towards Ĉ, since the swarm had room for them. With no update
// at all, or no time elapsed, T0 is kept.
type ICR struct {
	*tracker
	mult []float64 // A_p
}

// NewICR returns the ICR strategy over channels, starting at start.
func NewICR(channels []Channel, cfg Config, start time.Time) (*ICR, error) {
	t, err := newTracker(channels, cfg, start)
	if err != nil {
		return nil, err
	}
	s := &ICR{tracker: t, mult: make([]float64, len(t.interval))}
	for p, v := range t.interval {
		s.mult[p] = v / t.interval[0]
	}
	return s, nil
}

// Multiples returns A_p for every group, fastest first.
func (s *ICR) Multiples() []float64 { return append([]float64(nil), s.mult...) }

// Due reports whether the trigger holds or Config.MaxPeriod has passed.
func (s *ICR) Due(now time.Time) bool {
	return s.triggered() || s.overdue(now, s.cfg.MaxPeriod)
}

// Reassign recomputes T0 from the measured capacity and installs the result.
func (s *ICR) Reassign(now time.Time) []time.Duration {
	g := s.stats()
	updates := 0
	for _, gs := range g {
		updates += gs.suc
		if s.cfg.Counting == CountLoadOnly {
			updates += gs.lost
		}
	}
	t0 := s.interval[0] / s.mult[0]
	if dt := float64(now.Sub(s.last)); dt > 0 && updates > 0 {
		capacity := float64(updates) / dt // updates per nanosecond
		demand := 0.0                     // Σ N_p / A_p
		for p, n := range s.size {
			demand += float64(n) / s.mult[p]
		}
		t0 = demand / capacity
	}
	next := make([]float64, len(s.interval))
	for p := range next {
		next[p] = t0 * s.mult[p]
	}
	s.encourage(next, g)
	CheckPriorities(next, s.cfg.SmallestMultiple, s.cfg.BiggestMultiple)
	return s.commit(next, now)
}
