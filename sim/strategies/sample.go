package strategies

import (
	"time"

	"github.com/hivecrawl/hivecrawl/sched/recrawl"
)

// sample adds the step to the current window of the time series and
// closes the window every Config.Sample steps.
func (e *engine) sample() {
	for p, v := range e.cur {
		e.intervalSum[p] += v
	}
	e.acc.Online += float64(e.sw.online)
	e.acc.Queued += float64(e.queued)
	e.acc.Running += float64(e.running)
	e.acc.Throughput += e.rate / 1e6
	e.accN++
	if e.accN == e.cfg.Sample || e.step == e.cfg.Steps-1 {
		n := float64(e.accN)
		e.res.Series = append(e.res.Series, Sample{
			Step:       e.step + 1,
			Online:     e.acc.Online / n,
			Queued:     e.acc.Queued / n,
			Running:    e.acc.Running / n,
			Throughput: e.acc.Throughput / n,
			Intervals:  append([]float64(nil), e.cur...),
		})
		e.acc, e.accN = Sample{}, 0
	}
}

func (e *engine) finish() {
	r := e.res
	for p := range r.Groups {
		g := &r.Groups[p]
		g.MeanInterval = e.intervalSum[p] / float64(e.cfg.Steps)
		r.Submitted += g.Submitted
		r.Updates += g.Updates
		r.Expired += g.Expired
		r.Refused += g.Refused
		r.Lost += g.Lost
	}
	span := time.Duration(e.cfg.Steps) * Step
	r.Quality, r.WeightedQuality = recrawl.MeanQuality(e.updates, e.sc.Channels, len(r.Groups), span)
}
