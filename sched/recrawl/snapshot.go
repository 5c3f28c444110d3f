package recrawl

import (
	"fmt"
	"time"
)

// Snapshot is the state a strategy needs to resume after a restart: what
// the manager persists next to its channel database.
type Snapshot struct {
	// Intervals are the groups' current intervals in nanoseconds, fastest
	// first, unrounded.
	Intervals []float64 `json:"intervals"`
	// LastRates are the groups' success rates at the last reassignment.
	LastRates []float64 `json:"last_rates"`
	// Last is the time of the last reassignment (or the start).
	Last time.Time `json:"last"`
	// Rounds counts the reassignments done.
	Rounds int `json:"rounds"`
	// Histories are the channels' records since the last reassignment, in
	// channel order.
	Histories []History `json:"histories"`
}

// Persistent is implemented by every strategy of this package.
type Persistent interface {
	Snapshot() Snapshot
	Restore(Snapshot) error
}

var (
	_ Persistent = (*Fixed)(nil)
	_ Persistent = (*IIR)(nil)
	_ Persistent = (*ICR)(nil)
	_ Persistent = (*Controller)(nil)
)

// Snapshot returns a copy of the strategy's state.
func (t *tracker) Snapshot() Snapshot {
	return Snapshot{
		Intervals: append([]float64(nil), t.interval...),
		LastRates: append([]float64(nil), t.lastRate...),
		Last:      t.last,
		Rounds:    t.rounds,
		Histories: append([]History(nil), t.hist...),
	}
}

// Restore replaces the strategy's state by s, taken from a strategy over
// the same groups and channels (in the same order; channels added since are
// allowed and start with an empty history).
func (t *tracker) Restore(s Snapshot) error {
	k := len(t.interval)
	if len(s.Intervals) != k || len(s.LastRates) != k {
		return fmt.Errorf("%w: snapshot of %d groups for %d", ErrBadConfig, len(s.Intervals), k)
	}
	if len(s.Histories) > len(t.hist) {
		return fmt.Errorf("%w: snapshot of %d channels for %d", ErrBadConfig, len(s.Histories), len(t.hist))
	}
	for p, v := range s.Intervals {
		if !(v > 0) {
			return fmt.Errorf("%w: snapshot interval %g for group %d", ErrBadConfig, v, p)
		}
	}
	copy(t.interval, s.Intervals)
	copy(t.lastRate, s.LastRates)
	t.last, t.rounds = s.Last, s.Rounds
	clear(t.hist)
	copy(t.hist, s.Histories)
	t.ready = 0
	top := t.top()
	for i, h := range t.hist {
		if t.channels[i].Group == top && h.SucCount > t.cfg.TriggerUpdates {
			t.ready++
		}
	}
	return nil
}
