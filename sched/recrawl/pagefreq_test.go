package recrawl

import "testing"

func TestPageFreqCrawled(t *testing.T) {
	tests := []struct {
		name    string
		frMax   int
		history []bool // oldest first; the last one is the crawl that adapts
		limit   int
		want    int
	}{
		// Paper 003's example: fr_max 3, 10 changes in the last 20 of 45
		// records → b = 20/10 = 2 → ⌊(3+2)/2⌋ = 2.
		{name: "paper example", frMax: 3, history: mix(25, 0, 20, 10), limit: 20, want: 2},
		// Table 2, page 1: 9 changes in 10 → b = 10/9 → ⌊(2+1.11)/2⌋ = 1.
		{name: "page that keeps changing", frMax: 2, history: mix(0, 0, 10, 9), limit: 10, want: 1},
		// Table 2, page 2: 1 change in 10 → b = 10 → ⌊(2+10)/2⌋ = 6.
		{name: "page that rarely changes", frMax: 2, history: mix(0, 0, 10, 1), limit: 10, want: 6},
		// No change in the last 10 → b = x = 10 → ⌊(4+10)/2⌋ = 7.
		{name: "no change uses the window length", frMax: 4, history: mix(0, 0, 10, 0), limit: 10, want: 7},
		// Changes older than the window do not count: 0 of the last 5 →
		// b = 5 → ⌊(2+5)/2⌋ = 3.
		{name: "old changes leave the window", frMax: 2, history: append(mix(0, 0, 10, 10), mix(0, 0, 5, 0)...), limit: 5, want: 3},
		// One record, changed: x = 1, b = 1 → ⌊(1+1)/2⌋ = 1.
		{name: "first crawl", frMax: 1, history: []bool{true}, limit: 20, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PageFreq{}
			for _, c := range tc.history[:len(tc.history)-1] {
				p.Crawled(c, tc.limit)
			}
			p.FrMax = tc.frMax
			p.Crawled(tc.history[len(tc.history)-1], tc.limit)
			if p.FrMax != tc.want || p.Fr != tc.want {
				t.Errorf("fr_max %d, fr %d; want %d", p.FrMax, p.Fr, tc.want)
			}
		})
	}
}

// mix returns pre unchanged crawls (older than the window, when preChanged
// is 0) and then n crawls of which the first c changed.
func mix(pre, preChanged, n, c int) []bool {
	var out []bool
	for i := range pre {
		out = append(out, i < preChanged)
	}
	for i := range n {
		out = append(out, i < c)
	}
	return out
}

func TestPageFreqTick(t *testing.T) {
	p := PageFreq{}
	if !p.Tick() {
		t.Fatal("new page not due")
	}
	p.Crawled(true, 10) // x = 1, c = 1 → b = 1 → fr_max ⌊(1+1)/2⌋ = 1
	p.FrMax, p.Fr = 3, 3
	var due []bool
	for range 7 {
		d := p.Tick()
		due = append(due, d)
		if d {
			p.Fr = p.FrMax
		}
	}
	want := []bool{false, false, true, false, false, true, false}
	for i := range want {
		if due[i] != want[i] {
			t.Fatalf("due %v, want %v (every 3 cycles)", due, want)
		}
	}
}

func TestPageFreqFollow(t *testing.T) {
	p := PageFreq{}
	steps := []struct {
		share     float64
		follow    bool
		threshold float64
	}{
		{0.5, true, 0.45},    // 0.5 ≥ 0.4; (0.4+0.5)/2
		{0.3, false, 0.375},  // 0.3 < 0.45; (0.45+0.3)/2
		{0.375, true, 0.375}, // equal follows
		{2, true, 0.6875},    // clamped to 1; (0.375+1)/2
	}
	for i, s := range steps {
		if got := p.Follow(s.share); got != s.follow || p.Threshold != s.threshold {
			t.Fatalf("step %d: follow %v threshold %g, want %v %g", i, got, p.Threshold, s.follow, s.threshold)
		}
	}
}
