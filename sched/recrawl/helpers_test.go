package recrawl

import (
	"math"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(min float64) time.Time { return epoch.Add(time.Duration(min * float64(time.Minute))) }

func mins(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, m := range v {
		out[i] = time.Duration(m * float64(time.Minute))
	}
	return out
}

// ev is one event of a scripted run: sub, suc, fail or reassign.
type ev struct {
	kind string
	ch   int
	min  float64
	why  Failure
}

func sub(ch int, min float64) ev                   { return ev{kind: "sub", ch: ch, min: min} }
func suc(ch int, min float64) ev                   { return ev{kind: "suc", ch: ch, min: min} }
func fail(ch int, min float64, w Failure) ev       { return ev{kind: "fail", ch: ch, min: min, why: w} }
func reassign(min float64) ev                      { return ev{kind: "reassign", min: min} }
func subs(ch, n int, min float64) (out []ev)       { return repeat(sub(ch, min), n) }
func fails(ch, n int, min float64, w Failure) []ev { return repeat(fail(ch, min, w), n) }

func repeat(e ev, n int) []ev {
	out := make([]ev, n)
	for i := range out {
		out[i] = e
	}
	return out
}

func script(parts ...any) []ev {
	var out []ev
	for _, p := range parts {
		switch v := p.(type) {
		case ev:
			out = append(out, v)
		case []ev:
			out = append(out, v...)
		default:
			panic("script: bad part")
		}
	}
	return out
}

// play runs events on s and returns the intervals of every reassignment.
func play(s Strategy, events []ev) [][]time.Duration {
	var out [][]time.Duration
	for _, e := range events {
		switch e.kind {
		case "sub":
			s.Submitted(e.ch, at(e.min))
		case "suc":
			s.Succeeded(e.ch, at(e.min))
		case "fail":
			s.Failed(e.ch, e.why, at(e.min))
		case "reassign":
			out = append(out, s.Reassign(at(e.min)))
		}
	}
	return out
}

// near reports whether a and b differ by at most a millisecond.
func near(a, b time.Duration) bool { return math.Abs(float64(a-b)) <= float64(time.Millisecond) }

func checkRounds(t *testing.T, got [][]time.Duration, want [][]time.Duration) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d reassignments, want %d", len(got), len(want))
	}
	for r := range want {
		if len(got[r]) != len(want[r]) {
			t.Fatalf("round %d: got %d groups, want %d", r, len(got[r]), len(want[r]))
		}
		for p := range want[r] {
			if !near(got[r][p], want[r][p]) {
				t.Errorf("round %d group %d: interval %v, want %v", r, p, got[r][p], want[r][p])
			}
		}
	}
}

func channels(groupOfChangeMin ...float64) []Channel {
	// pairs: group, change minutes
	var out []Channel
	for i := 0; i+1 < len(groupOfChangeMin); i += 2 {
		out = append(out, Channel{Group: int(groupOfChangeMin[i]), ChangeInterval: time.Duration(groupOfChangeMin[i+1] * float64(time.Minute))})
	}
	return out
}
