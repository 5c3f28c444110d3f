package manager

import (
	"strings"
	"testing"
	"time"
)

func TestChart(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		hist      []IntervalPoint
		lines     int
		wantPoint []string // in line 0's points
	}{
		{"empty", nil, 0, nil},
		{"one point draws a flat line", []IntervalPoint{{Time: t0, Intervals: []time.Duration{time.Hour}}}, 1, []string{"600.0,", "40.0,"}},
		{
			"slowest at the bottom",
			[]IntervalPoint{
				{Time: t0, Intervals: []time.Duration{time.Hour, 4 * time.Hour}},
				{Time: t0.Add(time.Hour), Intervals: []time.Duration{2 * time.Hour, 4 * time.Hour}},
			},
			2,
			// x from 40 to 600; y: 4 h at the top (40), 1 h at the bottom (200).
			[]string{"40.0,200.0", "600.0,120.0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chart(tt.hist)
			if len(c.Lines) != tt.lines {
				t.Fatalf("%d lines, want %d", len(c.Lines), tt.lines)
			}
			for _, p := range tt.wantPoint {
				if !strings.Contains(c.Lines[0].Points, p) {
					t.Fatalf("line 0 points %q lack %q", c.Lines[0].Points, p)
				}
			}
		})
	}
}

func TestThroughput(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	type sample struct {
		after        time.Duration
		pages, tasks int64
	}
	tests := []struct {
		name    string
		samples []sample
		want    []ThroughputPoint
	}{
		{"first sample is the baseline", []sample{{0, 100, 10}}, nil},
		{"a minute of work", []sample{{0, 100, 10}, {time.Minute, 160, 16}},
			[]ThroughputPoint{{Time: t0.Add(time.Minute), Pages: 1, Tasks: 0.1}}},
		{"a sample too soon is dropped", []sample{{0, 0, 0}, {30 * time.Second, 60, 6}, {time.Minute, 120, 12}},
			[]ThroughputPoint{{Time: t0.Add(time.Minute), Pages: 2, Tasks: 0.2}}},
		{"a long gap is averaged", []sample{{0, 0, 0}, {2 * time.Minute, 120, 12}},
			[]ThroughputPoint{{Time: t0.Add(2 * time.Minute), Pages: 1, Tasks: 0.1}}},
		{"totals that went down count nothing", []sample{{0, 100, 10}, {time.Minute, 40, 4}},
			[]ThroughputPoint{{Time: t0.Add(time.Minute), Pages: 0, Tasks: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r throughput
			for _, s := range tt.samples {
				r.sample(t0.Add(s.after), s.pages, s.tasks)
			}
			got := r.Points()
			if len(got) != len(tt.want) {
				t.Fatalf("points %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if !got[i].Time.Equal(tt.want[i].Time) || got[i].Pages != tt.want[i].Pages || got[i].Tasks != tt.want[i].Tasks {
					t.Fatalf("point %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestThroughputKeepsAnHour: the points are bounded, the oldest dropped.
func TestThroughputKeepsAnHour(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var r throughput
	for i := range 3 * throughputKeep {
		r.sample(t0.Add(time.Duration(i)*throughputEvery), int64(i), 0)
	}
	got := r.Points()
	if len(got) != throughputKeep || !got[len(got)-1].Time.Equal(t0.Add(time.Duration(3*throughputKeep-1)*throughputEvery)) ||
		!got[0].Time.Equal(t0.Add(time.Duration(2*throughputKeep)*throughputEvery)) {
		t.Fatalf("%d points from %v to %v, want the last %d", len(got), got[0].Time, got[len(got)-1].Time, throughputKeep)
	}
}

func TestPlot(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	pages := func(p ThroughputPoint) float64 { return p.Pages }
	tests := []struct {
		name   string
		points []ThroughputPoint
		want   string // the polyline's points
		max    string
	}{
		{"none", nil, "", ""},
		// x from 20 to 620; y from 100 (0/s) to 20 (the highest rate).
		{"one point draws a flat line", []ThroughputPoint{{Time: t0, Pages: 3}}, "20.0,20.0 620.0,20.0", "3.00"},
		{"rising", []ThroughputPoint{{Time: t0, Pages: 0}, {Time: t0.Add(time.Minute), Pages: 5}, {Time: t0.Add(2 * time.Minute), Pages: 20}},
			"20.0,100.0 320.0,80.0 620.0,20.0", "20"},
		{"all zero stays at the bottom", []ThroughputPoint{{Time: t0}, {Time: t0.Add(time.Minute)}}, "20.0,100.0 620.0,100.0", "0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plot(tt.points, "pages", pages)
			if p.Points != tt.want || p.Max != tt.max {
				t.Fatalf("points %q max %q, want %q and %q", p.Points, p.Max, tt.want, tt.max)
			}
		})
	}
}
