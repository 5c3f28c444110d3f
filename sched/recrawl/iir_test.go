package recrawl

import (
	"testing"
	"time"
)

func TestIIRReassign(t *testing.T) {
	// Defaults: δ = 0.1, σ = 1.5, μ = 4. Two groups.
	tests := []struct {
		name     string
		counting Counting
		channels []Channel
		events   []ev
		want     [][]time.Duration
	}{
		{
			// Group 0: ch0 gaps 20, 20 → 20; ch1 gaps 30, 30 → 30; mean 25.
			// Success 6/6 = 1 > 0 (the paper's initial lastSuccessRate) →
			// 25 × 0.9 = 22.5. Group 1: ch2 gap 180, success 1 → 162.
			// checkPriorities: 162 ≥ 22.5, but 162 > 22.5 × μ = 90 → 90.
			name:     "first round encourages and mu clamps",
			channels: channels(0, 60, 0, 60, 1, 120),
			events: script(
				subs(0, 3, 0), suc(0, 10), suc(0, 30), suc(0, 50),
				subs(1, 3, 0), suc(1, 10), suc(1, 40), suc(1, 70),
				subs(2, 2, 0), suc(2, 20), suc(2, 200),
				reassign(200)),
			want: [][]time.Duration{mins(22.5, 90)},
		},
		{
			// Group 0: gap 40 → × 0.9 = 36. Group 1: gap 30 → × 0.9 = 27,
			// shorter than 36 → 36 × σ = 54 (≤ 36 × 4 = 144).
			name:     "sigma lifts a slower group that came out faster",
			channels: channels(0, 60, 1, 120),
			events: script(
				subs(0, 3, 0), suc(0, 0), suc(0, 40), suc(0, 80),
				subs(1, 2, 0), suc(1, 0), suc(1, 30),
				reassign(80)),
			want: [][]time.Duration{mins(36, 54)},
		},
		{
			// Group 1's only channel has one update, no gap: it keeps 120,
			// then is encouraged (1/1 > 0) → 108. Group 0: gap 50 → 45.
			name:     "group without a gap keeps its interval",
			channels: channels(0, 60, 1, 120),
			events: script(
				subs(0, 2, 0), suc(0, 0), suc(0, 50),
				sub(1, 0), suc(1, 10),
				reassign(60)),
			want: [][]time.Duration{mins(45, 108)},
		},
		{
			// Round 1: group 0 gaps 20, 20; success 3/4 (one expired) =
			// 0.75 > 0 → 18. Group 1 gap 100 → 90 > 18 × 4 = 72 → 72.
			// Round 2: group 0's gaps 40→130 = 90, 30, 30 → 50; one task
			// lost. Load-only: (3+1)/4 = 1 > 0.75 → 45. Group 1 had no
			// event: keeps 72, no rate, no encourage. → [45, 72].
			name:     "load-only counting ignores a lost task",
			counting: CountLoadOnly,
			channels: channels(0, 60, 1, 120),
			events: script(
				subs(0, 4, 0), suc(0, 0), suc(0, 20), suc(0, 40), fail(0, 45, FailExpired),
				subs(1, 2, 0), suc(1, 0), suc(1, 100),
				reassign(100),
				subs(0, 4, 100), suc(0, 130), suc(0, 160), suc(0, 190), fail(0, 190, FailLost),
				reassign(200)),
			want: [][]time.Duration{mins(18, 72), mins(45, 72)},
		},
		{
			// As above, but literally: round 2's success 3/4 = 0.75 does
			// not beat 0.75, so group 0 stays at its mean gap 50.
			name:     "literal counting lets a lost task block encourage",
			counting: CountAll,
			channels: channels(0, 60, 1, 120),
			events: script(
				subs(0, 4, 0), suc(0, 0), suc(0, 20), suc(0, 40), fail(0, 45, FailExpired),
				subs(1, 2, 0), suc(1, 0), suc(1, 100),
				reassign(100),
				subs(0, 4, 100), suc(0, 130), suc(0, 160), suc(0, 190), fail(0, 190, FailLost),
				reassign(200)),
			want: [][]time.Duration{mins(18, 72), mins(50, 72)},
		},
		{
			// Round 1: gap 0→60 = 60, success 2/4 = 0.5 > 0 → 54; group 1
			// has no event and keeps 120 (≥ 54, ≤ 216). Round 2: gap
			// 60→150 = 90, success 1/4 = 0.25 < 0.5: no encourage → 90;
			// group 1 keeps 120 (≥ 90, ≤ 360).
			name:     "falling success rate is not encouraged",
			channels: channels(0, 60, 1, 120),
			events: script(
				subs(0, 4, 0), suc(0, 0), suc(0, 60), fails(0, 2, 60, FailRefused),
				reassign(60),
				subs(0, 4, 60), suc(0, 150), fails(0, 3, 150, FailExpired),
				reassign(150)),
			want: [][]time.Duration{mins(54, 120), mins(90, 120)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewIIR(tc.channels, Config{Groups: 2, Counting: tc.counting}, epoch)
			if err != nil {
				t.Fatal(err)
			}
			checkRounds(t, play(s, tc.events), tc.want)
		})
	}
}

func TestCap(t *testing.T) {
	// Group 0 holds ch0 (change 40) and ch1 (change 80): mean gap 20 →
	// 18; group 1 (ch2, change 120): gap 100 → 90 → clamped to 18 × 4 = 72.
	// With the cap group 0 is raised to half its mean change interval
	// (60 / 2 = 30) and each channel to half its own: ch1 max(30, 40) = 40.
	events := script(
		subs(0, 3, 0), suc(0, 0), suc(0, 20), suc(0, 40),
		subs(1, 2, 0), suc(1, 0), suc(1, 20),
		subs(2, 2, 0), suc(2, 0), suc(2, 100),
		reassign(100))
	tests := []struct {
		name    string
		cap     bool
		want    []time.Duration
		perChan []time.Duration
	}{
		{name: "off", cap: false, want: mins(18, 72), perChan: mins(18, 18, 72)},
		{name: "on", cap: true, want: mins(30, 72), perChan: mins(30, 40, 72)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewIIR(channels(0, 40, 0, 80, 1, 120), Config{Groups: 2, Cap: tc.cap}, epoch)
			if err != nil {
				t.Fatal(err)
			}
			checkRounds(t, play(s, events), [][]time.Duration{tc.want})
			for ch, want := range tc.perChan {
				if got := s.Interval(ch); !near(got, want) {
					t.Errorf("channel %d: interval %v, want %v", ch, got, want)
				}
			}
		})
	}
}

func TestTrigger(t *testing.T) {
	// Group 0 has 4 channels: the reassignment is due once 2 of them
	// (50 %) have completed more than 5 updates, i.e. 6.
	chans := channels(0, 60, 0, 60, 0, 60, 0, 60, 1, 120)
	tests := []struct {
		name   string
		events []ev
		due    bool
	}{
		{name: "nothing yet", due: false},
		{name: "one channel past five", events: repeat(suc(0, 1), 6), due: false},
		{name: "two channels at exactly five", events: script(repeat(suc(0, 1), 5), repeat(suc(1, 1), 5)), due: false},
		{name: "second channel reaches six", events: script(repeat(suc(0, 1), 6), repeat(suc(1, 1), 6)), due: true},
		{name: "slower group does not count", events: script(repeat(suc(0, 1), 6), repeat(suc(4, 1), 50)), due: false},
		{name: "cleared by reassignment", events: script(repeat(suc(0, 1), 6), repeat(suc(1, 1), 6), reassign(2), repeat(suc(2, 3), 6)), due: false},
		{name: "counts again after reassignment", events: script(repeat(suc(0, 1), 6), repeat(suc(1, 1), 6), reassign(2), repeat(suc(2, 3), 6), repeat(suc(0, 3), 6)), due: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, mk := range []func() (Strategy, error){
				func() (Strategy, error) { return NewIIR(chans, Config{Groups: 2}, epoch) },
				func() (Strategy, error) { return NewICR(chans, Config{Groups: 2}, epoch) },
			} {
				s, err := mk()
				if err != nil {
					t.Fatal(err)
				}
				play(s, tc.events)
				if got := s.Due(at(3)); got != tc.due {
					t.Errorf("%T: Due = %v, want %v", s, got, tc.due)
				}
			}
		})
	}
}

func TestMaxPeriod(t *testing.T) {
	s, err := NewIIR(channels(0, 60, 1, 120), Config{Groups: 2, MaxPeriod: time.Hour}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if s.Due(at(59)) {
		t.Error("due after 59 min with a one-hour period")
	}
	if !s.Due(at(60)) {
		t.Error("not due after 60 min with a one-hour period")
	}
	s.Reassign(at(60))
	if s.Due(at(119)) {
		t.Error("due 59 min after the reassignment")
	}
}
