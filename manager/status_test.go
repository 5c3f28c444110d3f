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
