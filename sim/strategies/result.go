package strategies

import "github.com/hivecrawl/hivecrawl/sched/recrawl"

// GroupResult is one priority group's outcome over a run.
type GroupResult struct {
	// Submitted is the number of recrawl tasks submitted (Tables 1 and 3).
	Submitted int
	// Updates are successful recrawls.
	Updates int
	// Expired tasks waited longer than their interval; Refused found no
	// crawler online; Lost vanished with a crashed crawler.
	Expired, Refused, Lost int
	// MeanInterval is the group's recrawl interval averaged over the
	// run's steps, in steps (minutes).
	MeanInterval float64
}

// Sample is one window of the time series (Figs 4 and 5), averaged over
// its steps.
type Sample struct {
	// Step is the window's last step.
	Step int
	// Online crawlers, queued and running tasks.
	Online, Queued, Running float64
	// Throughput is the swarm's download rate in Mb/s.
	Throughput float64
	// Intervals are the groups' intervals (steps) at the window's end.
	Intervals []float64
}

// Result is one strategy's run.
type Result struct {
	Kind     Kind
	Counting recrawl.Counting
	Groups   []GroupResult
	// Totals over all groups.
	Submitted, Updates, Expired, Refused, Lost int
	// Migrated counts tasks moved by graceful departures.
	Migrated int
	// Reassignments the strategy ran.
	Reassignments int
	// Quality and WeightedQuality are design.md §9's update qualities
	// (Tables 2 and 4).
	Quality, WeightedQuality float64
	Series                   []Sample
}

// SuccessRate is updates ÷ submissions.
func (r *Result) SuccessRate() float64 {
	if r.Submitted == 0 {
		return 0
	}
	return float64(r.Updates) / float64(r.Submitted)
}

// MeanInterval is the channel-weighted mean of the groups' mean
// intervals, given the channels per group.
func (r *Result) MeanInterval(counts []int) float64 {
	s, n := 0.0, 0
	for p, g := range r.Groups {
		s += g.MeanInterval * float64(counts[p])
		n += counts[p]
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// Mean of a series field over the run.
func (r *Result) Mean(f func(Sample) float64) float64 {
	if len(r.Series) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range r.Series {
		s += f(x)
	}
	return s / float64(len(r.Series))
}
