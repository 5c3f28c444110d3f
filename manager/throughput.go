package manager

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// The schedule samples the storage totals for the status page's
// throughput plots no more often than throughputEvery, and keeps the last
// throughputKeep points: an hour. They live in memory only; a restarted
// manager starts its plots afresh (Prometheus keeps the long view).
const (
	throughputEvery = time.Minute
	throughputKeep  = 60
)

// ThroughputPoint is what the storage module stored per second between
// the sample before it and Time.
type ThroughputPoint struct {
	Time time.Time `json:"time"`
	// Pages are pages stored per second; Tasks results (one task's
	// upload) stored per second.
	Pages float64 `json:"pages_per_second"`
	Tasks float64 `json:"tasks_per_second"`
}

// throughput turns samples of the storage totals into the latest points.
type throughput struct {
	mu sync.Mutex // guards the fields below
	// last is when the last sample was taken (zero before the first);
	// pages and tasks are the totals then.
	last         time.Time
	pages, tasks int64
	points       []ThroughputPoint // oldest first, at most throughputKeep
}

// due reports whether a sample at now would be taken.
func (r *throughput) due(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last.IsZero() || now.Sub(r.last) >= throughputEvery
}

// sample records the totals at now: the first sample is the baseline,
// each later one (throughputEvery or more after the last) adds a point.
// A total that went down (a storage index restored from a backup) counts
// as nothing stored.
func (r *throughput) sample(now time.Time, pages, tasks int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.last.IsZero() {
		dt := now.Sub(r.last)
		if dt < throughputEvery {
			return
		}
		s := dt.Seconds()
		r.points = append(r.points, ThroughputPoint{Time: now,
			Pages: float64(max(0, pages-r.pages)) / s, Tasks: float64(max(0, tasks-r.tasks)) / s})
		if n := len(r.points) - throughputKeep; n > 0 {
			r.points = append(r.points[:0], r.points[n:]...)
		}
	}
	r.last, r.pages, r.tasks = now, pages, tasks
}

// Points returns a copy of the points, oldest first.
func (r *throughput) Points() []ThroughputPoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ThroughputPoint(nil), r.points...)
}

// sampleThroughput samples the storage totals when a sample is due.
func (m *Manager) sampleThroughput(now time.Time) error {
	if !m.thru.due(now) {
		return nil
	}
	t, err := m.store.Totals()
	if err != nil {
		return fmt.Errorf("sample throughput: %w", err)
	}
	m.thru.sample(now, t.Pages, int64(t.Uploads))
	return nil
}

// Plot is one throughput series drawn as an SVG polyline: x is time, y
// the rate from 0 at the bottom to Max at the top.
type Plot struct {
	Width, Height int
	Label         string
	Points        string
	// Max labels the top of the y axis, Last the latest rate.
	Max, Last string
	From, To  string
}

// plot draws pick's series of points; without points it has no Points.
func plot(points []ThroughputPoint, label string, pick func(ThroughputPoint) float64) Plot {
	p := Plot{Width: 640, Height: 120, Label: label}
	if len(points) == 0 {
		return p
	}
	top := 0.0
	for _, pt := range points {
		top = max(top, pick(pt))
	}
	scale := top
	if scale <= 0 {
		scale = 1
	}
	const pad = 20.0
	w, h := float64(p.Width)-2*pad, float64(p.Height)-2*pad
	t0, t1 := points[0].Time, points[len(points)-1].Time
	span := t1.Sub(t0)
	x := func(t time.Time) float64 {
		if span <= 0 {
			return pad + w
		}
		return pad + w*float64(t.Sub(t0))/float64(span)
	}
	y := func(v float64) float64 { return pad + h*(1-v/scale) }
	var sb strings.Builder
	if len(points) == 1 {
		fmt.Fprintf(&sb, "%.1f,%.1f ", pad, y(pick(points[0])))
	}
	for _, pt := range points {
		fmt.Fprintf(&sb, "%.1f,%.1f ", x(pt.Time), y(pick(pt)))
	}
	p.Points = strings.TrimSpace(sb.String())
	p.Max, p.Last = formatRate(top), formatRate(pick(points[len(points)-1]))
	p.From, p.To = t0.UTC().Format(time.TimeOnly), t1.UTC().Format(time.TimeOnly)
	return p
}

// formatRate writes a rate per second with two significant decimals for
// small ones: "12", "0.35".
func formatRate(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
