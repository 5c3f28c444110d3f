package taskmgr

import (
	"testing"
	"time"
)

func TestRunningLeft(t *testing.T) {
	tests := []struct {
		name  string
		r     Running
		pages int
		d     time.Duration
		ok    bool
	}{
		{"too early", Running{Pages: 2, Elapsed: time.Minute, Waiting: 10, Budget: 100}, 10, 0, false},
		{"pace of 2 s a page", Running{Pages: 10, Elapsed: 20 * time.Second, Waiting: 30, Budget: 100}, 30, time.Minute, true},
		{"the page limit bounds it", Running{Pages: 10, Elapsed: 20 * time.Second, Waiting: 30, Budget: 5}, 5, 10 * time.Second, true},
		{"resumed pages are not this start's pace", Running{Pages: 110, Resumed: 100, Elapsed: 20 * time.Second, Waiting: 30, Budget: 100}, 30, time.Minute, true},
		{"nothing left", Running{Pages: 10, Elapsed: 20 * time.Second}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, d, ok := tt.r.Left()
			if pages != tt.pages || d != tt.d || ok != tt.ok {
				t.Fatalf("Left = %d, %v, %v; want %d, %v, %v", pages, d, ok, tt.pages, tt.d, tt.ok)
			}
		})
	}
}
