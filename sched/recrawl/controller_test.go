package recrawl

import (
	"testing"
	"time"
)

func TestController(t *testing.T) {
	// Two groups changing every 60 and 120 min; δ = 0.1; thresholds 10 %
	// and 25 % of submissions; floor at half the change interval (30, 60).
	tests := []struct {
		name   string
		events []ev
		want   [][]time.Duration
	}{
		{
			// 1 expired of 20 = 5 % < 10 % → × 0.9.
			name:   "few load failures shorten",
			events: script(subs(0, 20, 0), fails(0, 1, 5, FailExpired), reassign(60)),
			want:   [][]time.Duration{mins(54, 108)},
		},
		{
			// 3 of 20 = 15 %: between the thresholds, unchanged.
			name:   "moderate load failures hold",
			events: script(subs(0, 20, 0), fails(1, 3, 5, FailRefused), reassign(60)),
			want:   [][]time.Duration{mins(60, 120)},
		},
		{
			// 3 of 10 = 30 % > 25 % → ÷ 0.9.
			name:   "many load failures lengthen",
			events: script(subs(0, 10, 0), fails(0, 3, 5, FailExpired), reassign(60)),
			want:   [][]time.Duration{mins(60/0.9, 120/0.9)},
		},
		{
			// 5 of 10 lost to crashes: not load-dependent, 0 % → × 0.9.
			name:   "tasks lost to crashes do not count",
			events: script(subs(0, 10, 0), fails(0, 5, 5, FailLost), reassign(60)),
			want:   [][]time.Duration{mins(54, 108)},
		},
		{
			// 60 × 0.9^7 = 28.7 < 30 → 30 and 120 × 0.9^7 = 57.4 → 60 on the
			// seventh round; the sixth is 60 × 0.9^6 = 31.89, 63.78.
			name: "never below half the change interval",
			events: script(
				sub(0, 0), reassign(1), sub(0, 1), reassign(2), sub(0, 2), reassign(3),
				sub(0, 3), reassign(4), sub(0, 4), reassign(5), sub(0, 5), reassign(6),
				sub(0, 6), reassign(7)),
			want: [][]time.Duration{
				mins(54, 108), mins(48.6, 97.2), mins(43.74, 87.48), mins(39.366, 78.732),
				mins(35.4294, 70.8588), mins(31.88646, 63.77292), mins(30, 60)},
		},
		{
			// Nothing submitted: no evidence, unchanged.
			name:   "no submissions hold",
			events: script(reassign(60)),
			want:   [][]time.Duration{mins(60, 120)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewController(channels(0, 60, 1, 120), Config{Groups: 2}, epoch)
			if err != nil {
				t.Fatal(err)
			}
			checkRounds(t, play(s, tc.events), tc.want)
		})
	}
}

func TestControllerDue(t *testing.T) {
	// Default period: (5 + 1) × the fastest interval, 60 min → 360 min.
	s, err := NewController(channels(0, 60, 1, 120), Config{Groups: 2}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if s.Due(at(359)) {
		t.Error("due at 359 min")
	}
	if !s.Due(at(360)) {
		t.Error("not due at 360 min")
	}
}

func TestFixed(t *testing.T) {
	s, err := NewFixed(channels(0, 50, 0, 70, 1, 130), Config{Groups: 2}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	play(s, script(repeat(suc(0, 1), 10), repeat(suc(1, 1), 10)))
	if s.Due(at(1e6)) {
		t.Error("FIXED due")
	}
	checkRounds(t, [][]time.Duration{s.Reassign(at(10))}, [][]time.Duration{mins(60, 130)})
	for ch, want := range mins(50, 70, 130) {
		if got := s.Interval(ch); got != want {
			t.Errorf("channel %d: %v, want %v", ch, got, want)
		}
	}
	if h := s.History(0); h.SucCount != 0 || h.LastUpdate != at(1) {
		t.Errorf("history after reassignment %+v, want cleared counts and last update kept", h)
	}
}

func TestInitialIntervals(t *testing.T) {
	tests := []struct {
		name     string
		channels []Channel
		want     []time.Duration
	}{
		{name: "means per group", channels: channels(0, 50, 0, 70, 1, 100, 2, 240), want: mins(60, 100, 240)},
		{name: "empty middle group doubles", channels: channels(0, 60, 2, 300), want: mins(60, 120, 300)},
		{name: "empty fastest group halves", channels: channels(1, 100, 2, 300), want: mins(50, 100, 300)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewIIR(tc.channels, Config{Groups: 3}, epoch)
			if err != nil {
				t.Fatal(err)
			}
			checkRounds(t, [][]time.Duration{s.Intervals()}, [][]time.Duration{tc.want})
		})
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name     string
		channels []Channel
		cfg      Config
	}{
		{name: "no channels"},
		{name: "group out of range", channels: channels(5, 60)},
		{name: "negative group", channels: channels(-1, 60)},
		{name: "zero change interval", channels: channels(0, 0)},
		{name: "encourage 1", channels: channels(0, 60), cfg: Config{Encourage: 1}},
		{name: "sigma below 1", channels: channels(0, 60), cfg: Config{SmallestMultiple: 0.5}},
		{name: "mu below sigma", channels: channels(0, 60), cfg: Config{SmallestMultiple: 2, BiggestMultiple: 1.5}},
		{name: "bad counting", channels: channels(0, 60), cfg: Config{Counting: 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewIIR(tc.channels, tc.cfg, epoch); err == nil {
				t.Error("no error")
			}
		})
	}
}
