package ledger

import (
	"math"
	"testing"
	"time"
)

func TestAverage(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		name string
		run  func(a *Average) time.Time // returns "now"
		want float64
		tol  float64
	}{
		{"empty", func(a *Average) time.Time { return t0 }, 0, 0},
		{"steady 100 a day for 20 weeks", func(a *Average) time.Time {
			for i := range 140 * 24 {
				a.Add(t0.Add(time.Duration(i)*time.Hour), 100.0/24)
			}
			return t0.Add(140 * day)
		}, 100, 1},
		{"one grant halves in a week", func(a *Average) time.Time {
			a.Add(t0, 700)
			return t0.Add(7 * day)
		}, 700 * math.Ln2 / 7 / 2, 1e-9},
		{"order does not matter", func(a *Average) time.Time {
			a.Add(t0.Add(3*day), 10)
			a.Add(t0, 20)
			a.Add(t0.Add(day), 30)
			return t0.Add(10 * day)
		}, (10*math.Pow(2, -7.0/7) + 20*math.Pow(2, -10.0/7) + 30*math.Pow(2, -9.0/7)) * math.Ln2 / 7, 1e-9},
		{"now before last grant does not grow", func(a *Average) time.Time {
			a.Add(t0.Add(day), 70)
			return t0
		}, 70 * math.Ln2 / 7, 1e-9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Average
			now := tt.run(&a)
			if got := a.PerDay(now); math.Abs(got-tt.want) > tt.tol {
				t.Fatalf("PerDay = %v, want %v ± %v", got, tt.want, tt.tol)
			}
		})
	}
}
