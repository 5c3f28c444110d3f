package strategies

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hivecrawl/hivecrawl/sched/recrawl"
)

func small(t *testing.T) *Scenario {
	t.Helper()
	cfg := REC().Shrink(0.05)
	sc, err := NewScenario(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRunDeterministic(t *testing.T) {
	sc := small(t)
	a, err := sc.Run(ICR, recrawl.CountLoadOnly)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sc.Run(ICR, recrawl.CountLoadOnly)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs with the same scenario differ")
	}
}

func TestFixedAccounting(t *testing.T) {
	sc := small(t)
	r, err := sc.Run(Fixed, recrawl.CountLoadOnly)
	if err != nil {
		t.Fatal(err)
	}
	counts := GroupCounts(sc.Config.Channels, sc.Config.GroupShares)
	for p, g := range r.Groups {
		iv := float64(sc.Config.GroupIntervals[p])
		if g.MeanInterval != iv {
			t.Errorf("group %d: FIXED mean interval %v, want %v", p, g.MeanInterval, iv)
		}
		// Every channel is submitted once per interval from a start in
		// its first interval.
		want := float64(counts[p]) * float64(sc.Config.Steps) / iv
		if math.Abs(float64(g.Submitted)-want) > float64(counts[p])+1 {
			t.Errorf("group %d: %d submissions, want about %.0f", p, g.Submitted, want)
		}
		if out := g.Updates + g.Expired + g.Refused + g.Lost; out > g.Submitted {
			t.Errorf("group %d: %d outcomes for %d tasks", p, out, g.Submitted)
		}
	}
	if r.Updates == 0 || r.Lost == 0 || r.Migrated == 0 {
		t.Fatalf("no updates, losses or migrations: %+v", r)
	}
	// Crawlers churn: on average about lifetime/(lifetime+rejoin) online.
	on := r.Mean(func(s Sample) float64 { return s.Online }) / float64(sc.Config.Crawlers)
	if on < 0.5 || on > 0.8 {
		t.Fatalf("mean share online %.2f, want about 1000/1600", on)
	}
}

// More crawlers must not lower FIXED's update quality: the RUC swarm
// completes at least as many of the same tasks as the REC one.
func TestMoreCrawlersMoreUpdates(t *testing.T) {
	var q []float64
	for _, cfg := range []Config{REC().Shrink(0.05), RUC().Shrink(0.05)} {
		sc, err := NewScenario(cfg, 5)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sc.Run(Fixed, recrawl.CountLoadOnly)
		if err != nil {
			t.Fatal(err)
		}
		q = append(q, r.WeightedQuality)
	}
	if !(q[1] > q[0]) {
		t.Fatalf("weighted quality REC %.3f, RUC %.3f", q[0], q[1])
	}
}

func TestGroupCountsAndBandwidth(t *testing.T) {
	c := GroupCounts(16000, REC().GroupShares)
	if s := c[0] + c[1] + c[2] + c[3] + c[4]; s != 16000 || c[2] < 7140 || c[2] > 7155 || c[0] != c[4]+1 && c[0] != c[4] {
		t.Fatalf("counts %v", c)
	}
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[float64]int{}
	for range 10000 {
		seen[Bandwidth(r)]++
	}
	if len(seen) != 3 || seen[2] < seen[0.5] {
		t.Fatalf("bandwidth levels %v", seen)
	}
}

// Runs in lockstep over one shared swarm must give what separate runs give.
func TestRunAllMatchesSeparateRuns(t *testing.T) {
	sc := small(t)
	kinds := []Kind{Fixed, Controller}
	all, err := sc.RunAll(kinds, recrawl.CountLoadOnly)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range kinds {
		one, err := sc.Run(k, recrawl.CountLoadOnly)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, all[i]) {
			t.Fatalf("%s: lockstep run differs from a separate run", k)
		}
	}
}
