package recrawl

import (
	"testing"
	"time"
)

// icrChannels: 10 channels changing every 60 min (group 0) and 20 every
// 120 min (group 1), so A = [1, 2] and Σ N_p / A_p = 10 + 20/2 = 20.
func icrChannels() []Channel {
	var c []Channel
	for range 10 {
		c = append(c, Channel{Group: 0, ChangeInterval: time.Hour})
	}
	for range 20 {
		c = append(c, Channel{Group: 1, ChangeInterval: 2 * time.Hour})
	}
	return c
}

func TestICRReassign(t *testing.T) {
	// Round 1 (Δt = 100 min): 20 + 20 = 40 updates → Ĉ = 0.4/min →
	// T0' = 20 / 0.4 = 50, T1 = 100. Group 0 success 20/20 = 1 > 0 → 45;
	// group 1 success 20/25 = 0.8 > 0 → 90. Order: 90 ∈ [45, 180].
	round1 := script(
		subs(0, 20, 0), repeat(suc(0, 50), 20),
		subs(10, 25, 0), repeat(suc(10, 50), 20), fails(10, 5, 60, FailExpired),
		reassign(100))
	// Round 2 (Δt = 50 min): group 0 has 8 updates and 2 lost of 10,
	// group 1 has 10 updates of 10.
	round2 := script(
		subs(0, 10, 100), repeat(suc(0, 120), 8), fails(0, 2, 130, FailLost),
		subs(10, 10, 100), repeat(suc(10, 120), 10),
		reassign(150))
	tests := []struct {
		name     string
		counting Counting
		want     [][]time.Duration
	}{
		{
			// Load-only: updates 18 + 2 lost = 20 → Ĉ = 0.4/min → T0' =
			// 50, T1 = 100. Group 0 success (8+2)/10 = 1, not > 1 → 50;
			// group 1 1 > 0.8 → 90. Order: 90 ∈ [50, 200].
			name:     "load-only",
			counting: CountLoadOnly,
			want:     [][]time.Duration{mins(45, 90), mins(50, 90)},
		},
		{
			// Literal: updates 18 → Ĉ = 0.36/min → T0' = 20/0.36 =
			// 55.5̅ min, T1 = 111.1̅. Group 0 success 0.8 < 1 → 55.5̅;
			// group 1 1 > 0.8 → 111.1̅ × 0.9 = 100.
			name:     "literal",
			counting: CountAll,
			want:     [][]time.Duration{mins(45, 90), mins(500.0/9, 100)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewICR(icrChannels(), Config{Groups: 2, Counting: tc.counting}, epoch)
			if err != nil {
				t.Fatal(err)
			}
			if a := s.Multiples(); a[0] != 1 || a[1] != 2 {
				t.Fatalf("multiples %v, want [1 2]", a)
			}
			checkRounds(t, play(s, script(round1, round2)), tc.want)
		})
	}
}

func TestICRWithoutUpdatesKeepsBase(t *testing.T) {
	// No update in the period: no capacity estimate, T0 stays 60; nothing
	// succeeded so the rate 0 does not beat 0 → no encourage.
	s, err := NewICR(icrChannels(), Config{Groups: 2}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	got := play(s, script(subs(0, 3, 0), fails(0, 3, 10, FailExpired), reassign(100)))
	checkRounds(t, got, [][]time.Duration{mins(60, 120)})
}
