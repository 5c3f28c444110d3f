package operator

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
