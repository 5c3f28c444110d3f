package recrawl

import "time"

// Strategy is what the manager and the simulator drive: they report every
// task's fate, ask whether a reassignment is due, run it, and read each
// channel's interval when scheduling. It is declared here, beside its
// implementations, because two consumers (manager and sim) share it.
type Strategy interface {
	// Submitted records a task submitted for channel ch at now.
	Submitted(ch int, now time.Time)
	// Succeeded records an update (successful recrawl) of ch at now.
	Succeeded(ch int, now time.Time)
	// Failed records a task of ch that brought no update, and why.
	Failed(ch int, why Failure, now time.Time)
	// Due reports whether a reassignment should run at now.
	Due(now time.Time) bool
	// Reassign computes and installs new group intervals (fastest first)
	// from the history since the last reassignment, which it then clears.
	Reassign(now time.Time) []time.Duration
	// Interval returns channel ch's current recrawl interval.
	Interval(ch int) time.Duration
	// Group returns channel ch's priority group.
	Group(ch int) int
	// Intervals returns every group's current interval, fastest first.
	Intervals() []time.Duration
	// Add appends a channel and returns its index.
	Add(c Channel) (int, error)
}

var (
	_ Strategy = (*Fixed)(nil)
	_ Strategy = (*IIR)(nil)
	_ Strategy = (*ICR)(nil)
	_ Strategy = (*Controller)(nil)
)

// Fixed is paper 000's FIXED strategy: every channel is recrawled at its
// change interval, whatever the swarm can do. It never reassigns; it still
// keeps histories so its runs can be measured like the others'.
type Fixed struct{ *tracker }

// NewFixed returns the FIXED strategy over channels.
func NewFixed(channels []Channel, cfg Config, start time.Time) (*Fixed, error) {
	t, err := newTracker(channels, cfg, start)
	if err != nil {
		return nil, err
	}
	return &Fixed{t}, nil
}

// Due is always false: FIXED never reassigns.
func (f *Fixed) Due(time.Time) bool { return false }

// Reassign only starts a new history period; the intervals do not change.
func (f *Fixed) Reassign(now time.Time) []time.Duration {
	next := append([]float64(nil), f.interval...)
	return f.commit(next, now)
}

// Interval returns channel ch's change interval.
func (f *Fixed) Interval(ch int) time.Duration { return f.channels[ch].ChangeInterval }
