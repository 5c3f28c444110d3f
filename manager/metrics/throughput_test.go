package metrics

import (
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/operator"
)

func TestThroughput(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	type sample struct {
		after        time.Duration
		pages, tasks int64
	}
	tests := []struct {
		name    string
		samples []sample
		want    []operator.ThroughputPoint
	}{
		{"first sample is the baseline", []sample{{0, 100, 10}}, nil},
		{"a minute of work", []sample{{0, 100, 10}, {time.Minute, 160, 16}},
			[]operator.ThroughputPoint{{Time: t0.Add(time.Minute), Pages: 1, Tasks: 0.1}}},
		{"a sample too soon is dropped", []sample{{0, 0, 0}, {30 * time.Second, 60, 6}, {time.Minute, 120, 12}},
			[]operator.ThroughputPoint{{Time: t0.Add(time.Minute), Pages: 2, Tasks: 0.2}}},
		{"a long gap is averaged", []sample{{0, 0, 0}, {2 * time.Minute, 120, 12}},
			[]operator.ThroughputPoint{{Time: t0.Add(2 * time.Minute), Pages: 1, Tasks: 0.1}}},
		{"totals that went down count nothing", []sample{{0, 100, 10}, {time.Minute, 40, 4}},
			[]operator.ThroughputPoint{{Time: t0.Add(time.Minute), Pages: 0, Tasks: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Throughput
			for _, s := range tt.samples {
				r.Sample(t0.Add(s.after), s.pages, s.tasks)
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
	var r Throughput
	for i := range 3 * throughputKeep {
		r.Sample(t0.Add(time.Duration(i)*ThroughputEvery), int64(i), 0)
	}
	got := r.Points()
	if len(got) != throughputKeep || !got[len(got)-1].Time.Equal(t0.Add(time.Duration(3*throughputKeep-1)*ThroughputEvery)) ||
		!got[0].Time.Equal(t0.Add(time.Duration(2*throughputKeep)*ThroughputEvery)) {
		t.Fatalf("%d points from %v to %v, want the last %d", len(got), got[0].Time, got[len(got)-1].Time, throughputKeep)
	}
}
