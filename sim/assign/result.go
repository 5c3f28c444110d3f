package assign

import (
	"math"
	"slices"
)

// Sample is one window of the time series, averaged over its steps except
// the load variations, taken at its last step, and the migrations,
// cumulative.
type Sample struct {
	Step int
	// Rate is the aggregated download rate in Mb/s (Fig. 15).
	Rate float64
	// HalfRTT is the mean crawler–host RTT/2 of executing tasks in ms
	// (Fig. 16).
	HalfRTT float64
	// Executing and Queued tasks and their pages (Figs 17, 18).
	Executing, ExecutingPages, Queued, QueuedPages float64
	// CVAll and CVExecuting are the coefficients of variation of the
	// tasks per online crawler (Fig. 19 a, b).
	CVAll, CVExecuting float64
	// Migrated tasks and pages so far (Fig. 20).
	Migrated, MigratedPages float64
	Online                  float64
}

// Result is one scheme's run.
type Result struct {
	Scheme   Scheme
	Crawlers int
	// Units is the hosts or pieces submitted each round.
	Units                                          int
	Submitted, Completed, Cancelled, Lost, Refused int
	// Skipped counts resubmissions left out because the unit was still
	// being crawled (Config.OneConnection).
	Skipped int
	// MaxConcurrent is the most tasks of one unit queued or running at
	// once.
	MaxConcurrent int
	// Recrawls is each host's completed crawls (a split host's completed
	// pieces ÷ its pieces) (Fig. 21).
	Recrawls []float64
	Series   []Sample
}

// MeanRate is the download rate averaged over the run, in Mb/s.
func (r *Result) MeanRate() float64 { return r.mean(func(s Sample) float64 { return s.Rate }) }

// MeanOnline is the crawlers online averaged over the run.
func (r *Result) MeanOnline() float64 { return r.mean(func(s Sample) float64 { return s.Online }) }

func (r *Result) mean(f func(Sample) float64) float64 {
	if len(r.Series) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range r.Series {
		s += f(x)
	}
	return s / float64(len(r.Series))
}

// ShareAbove returns the share of hosts recrawled more than k times.
func (r *Result) ShareAbove(k float64) float64 {
	n := 0
	for _, v := range r.Recrawls {
		if v > k {
			n++
		}
	}
	return float64(n) / float64(max(1, len(r.Recrawls)))
}

func (e *engine) sample() {
	e.acc.Rate += e.rate / 1e6
	if e.running > 0 {
		e.acc.HalfRTT += e.rttSum / float64(e.running) / 2
	}
	e.acc.Executing += float64(e.running)
	e.acc.ExecutingPages += float64(e.runPages)
	e.acc.Queued += float64(e.queued)
	e.acc.QueuedPages += float64(e.queuePages)
	e.acc.Online += float64(e.online)
	e.accN++
	if e.accN < e.cfg.Sample && e.step < e.cfg.Steps-1 {
		return
	}
	n := float64(e.accN)
	var all, exec []float64
	for c := range e.cr {
		if cr := &e.cr[c]; cr.online {
			all = append(all, float64(cr.queued+len(cr.running)))
			exec = append(exec, float64(len(cr.running)))
		}
	}
	e.res.Series = append(e.res.Series, Sample{
		Step: e.step + 1, Rate: e.acc.Rate / n, HalfRTT: e.acc.HalfRTT / n,
		Executing: e.acc.Executing / n, ExecutingPages: e.acc.ExecutingPages / n,
		Queued: e.acc.Queued / n, QueuedPages: e.acc.QueuedPages / n,
		CVAll: cv(all), CVExecuting: cv(exec),
		Migrated: float64(e.migrated), MigratedPages: float64(e.migratedPages),
		Online: e.acc.Online / n,
	})
	e.acc, e.accN = Sample{}, 0
}

func cv(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	if m == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s/float64(len(v))) / m
}

func (e *engine) finish() {
	per := make([]float64, e.cfg.Hosts)
	units := make([]int, e.cfg.Hosts)
	for u, un := range e.units {
		per[un.Host] += float64(e.done[u])
		units[un.Host]++
	}
	for h := range per {
		per[h] /= float64(max(1, units[h]))
	}
	slices.Sort(per)
	e.res.Recrawls = per
}
