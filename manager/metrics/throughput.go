package metrics

import (
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/operator"
)

// The schedule samples the storage totals for the status page's
// throughput plots no more often than ThroughputEvery, and keeps the last
// throughputKeep points: an hour. They live in memory only; a restarted
// manager starts its plots afresh (Prometheus keeps the long view).
const (
	ThroughputEvery = time.Minute
	throughputKeep  = 60
)

// Throughput turns samples of the storage totals into the latest points.
type Throughput struct {
	mu sync.Mutex // guards the fields below
	// last is when the last sample was taken (zero before the first);
	// pages and tasks are the totals then.
	last         time.Time
	pages, tasks int64
	points       []operator.ThroughputPoint // oldest first, at most throughputKeep
}

// Due reports whether a sample at now would be taken.
func (r *Throughput) Due(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last.IsZero() || now.Sub(r.last) >= ThroughputEvery
}

// Sample records the totals at now: the first sample is the baseline,
// each later one (ThroughputEvery or more after the last) adds a point.
// A total that went down (a storage index restored from a backup) counts
// as nothing stored.
func (r *Throughput) Sample(now time.Time, pages, tasks int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.last.IsZero() {
		dt := now.Sub(r.last)
		if dt < ThroughputEvery {
			return
		}
		s := dt.Seconds()
		r.points = append(r.points, operator.ThroughputPoint{Time: now,
			Pages: float64(max(0, pages-r.pages)) / s, Tasks: float64(max(0, tasks-r.tasks)) / s})
		if n := len(r.points) - throughputKeep; n > 0 {
			r.points = append(r.points[:0], r.points[n:]...)
		}
	}
	r.last, r.pages, r.tasks = now, pages, tasks
}

// Points returns a copy of the points, oldest first.
func (r *Throughput) Points() []operator.ThroughputPoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]operator.ThroughputPoint(nil), r.points...)
}
