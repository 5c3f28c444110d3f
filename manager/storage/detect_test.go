package storage

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hivecrawl/hivecrawl/fixture"
	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// TestSampleSize: a new peer's sample is the smallest that finds one of
// the forged pages of a result with one in ten forged with probability at
// least 0.9, the whole result when small; a recorded peer's is within the
// budget, never empty.
func TestSampleSize(t *testing.T) {
	v := Validation{Checks: &checker{}}
	v.defaults()
	for _, c := range []struct {
		name             string
		pages, new, rec  int
		newProb, recProb float64 // detection of one page in ten forged
	}{
		{name: "one page", pages: 1, new: 1, rec: 1, newProb: 1, recProb: 1},
		{name: "small result checked whole", pages: 8, new: 8, rec: 1, newProb: 1, recProb: 0.125},
		{name: "ten pages", pages: 10, new: 9, rec: 1, newProb: 0.9, recProb: 0.1},
		{name: "twenty pages", pages: 20, new: 14, rec: 1, newProb: 0.9211, recProb: 0.1},
		{name: "hundred pages", pages: 100, new: 20, rec: 8, newProb: 0.9049, recProb: 0.5834},
		{name: "four hundred pages", pages: 400, new: 22, rec: 22, newProb: 0.9079, recProb: 0.9079},
		{name: "ten thousand pages", pages: 10000, new: 22, rec: 22, newProb: 0.9018, recProb: 0.9018},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := forgedPages(c.pages, 0.1)
			n, rec := v.sampleSize(c.pages, false), v.sampleSize(c.pages, true)
			if n != c.new || rec != c.rec {
				t.Fatalf("sample of %d pages: %d new, %d recorded; want %d and %d", c.pages, n, rec, c.new, c.rec)
			}
			if p := 1 - missProbability(c.pages, k, n); math.Abs(p-c.newProb) > 1e-4 || p < 0.9-1e-12 {
				t.Errorf("new peer: detection %.4f, want %.4f (at least 0.9)", p, c.newProb)
			}
			if p := 1 - missProbability(c.pages, k, rec); math.Abs(p-c.recProb) > 1e-4 {
				t.Errorf("recorded peer: detection %.4f, want %.4f", p, c.recProb)
			}
		})
	}
	// Every size: the new peer's sample reaches 0.9 and is the smallest
	// that does; the recorded peer's costs at most the budget (or one page).
	for pages := 1; pages <= 3000; pages++ {
		k := forgedPages(pages, 0.1)
		n := v.sampleSize(pages, false)
		if 1-missProbability(pages, k, n) < 0.9-1e-12 || (n > 1 && 1-missProbability(pages, k, n-1) >= 0.9-1e-12) {
			t.Fatalf("%d pages: new peer's sample %d is not the smallest reaching 0.9", pages, n)
		}
		if rec := v.sampleSize(pages, true); rec < 1 || rec > n || (rec > 1 && float64(rec) > v.Budget*float64(pages)+1e-9) {
			t.Fatalf("%d pages: recorded peer's sample %d out of its budget", pages, rec)
		}
	}
}

// TestSamplePagesUniform: the draw is without replacement and gives every
// page the same chance.
func TestSamplePagesUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := make([]int, 10)
	const runs = 20000
	for range runs {
		pages := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		seen := map[int]bool{}
		for _, p := range samplePages(pages, 3, r.Float64) {
			if seen[p] {
				t.Fatalf("page %d drawn twice", p)
			}
			seen[p] = true
			counts[p]++
		}
	}
	for p, n := range counts {
		// Each page is drawn with probability 0.3: 6,000 ± 65 (sd).
		if n < 5700 || n > 6300 {
			t.Errorf("page %d drawn %d times of %d, want about 6000", p, n, runs)
		}
	}
}

// TestValuablePagesSampledApart: a recorded peer's result of 99 pages
// reported unchanged (0.1 credit each) and one new page (1 credit) has the
// new page checked every time: drawn with the others, it would be in 8 %
// of the samples while earning half the result's credit, and forging it
// would pay.
func TestValuablePagesSampledApart(t *testing.T) {
	src := rand.New(rand.NewPCG(44, 4))
	r, _, _ := validatingRig(t, src.Float64)
	const peer = "12D3KooWRecordedPeer"
	if err := r.st.idx.db.Update(func(tx kv.Tx) error {
		return updateRecord(tx, peer, func(rec *PeerRecord) { rec.Streak = 5 })
	}); err != nil {
		t.Fatal(err)
	}
	pages := []sampled{{URL: "http://site.example/new"}}
	for i := range 99 {
		pages = append(pages, sampled{URL: fmt.Sprintf("http://site.example/old-%d", i), Unchanged: true})
	}
	withNew := 0
	for range 1000 {
		sample, recorded, err := r.st.chooseCheck(peer, pages)
		if err != nil || !recorded {
			t.Fatalf("recorded %v, %v", recorded, err)
		}
		if len(sample) != 1+7 {
			t.Fatalf("sample of %d pages, want the new one and 7 of the 99 unchanged", len(sample))
		}
		for _, p := range sample {
			if p.URL == "http://site.example/new" {
				withNew++
			}
		}
	}
	if withNew != 1000 {
		t.Fatalf("the new page was in %d samples of 1000, want all", withNew)
	}
}

// TestDetectionFigures computes the figures docs/validation.md states
// (go test -run TestDetectionFigures -v ./manager/storage) and holds the
// property the game rests on: for every result size and every number of
// forged pages, a check catches the result with probability at least the
// forged share, so forging never earns more than it risks.
func TestDetectionFigures(t *testing.T) {
	v := Validation{Checks: &checker{}}
	v.defaults()
	for pages := 1; pages <= 400; pages++ {
		for _, rec := range []bool{false, true} {
			n := v.sampleSize(pages, rec)
			for k := 1; k <= pages; k++ {
				if q := 1 - missProbability(pages, k, n); q < float64(k)/float64(pages)-1e-12 {
					t.Fatalf("%d pages, %d forged, record %v: caught with %.4f, below the forged share", pages, k, rec, q)
				}
			}
		}
	}
	t.Log("| pages | new: sample | 1 in 10 | 1 in 4 | all | record: sample | cost | 1 in 10 | 1 in 4 | all |")
	for _, pages := range []int{1, 5, 8, 10, 20, 50, 100, 200, 400, 1000} {
		n, rec := v.sampleSize(pages, false), v.sampleSize(pages, true)
		caught := func(n int, share float64) float64 {
			return 1 - missProbability(pages, forgedPages(pages, share), n)
		}
		t.Logf("| %d | %d | %.2f | %.2f | %.2f | %d | %.1f %% | %.2f | %.2f | %.2f |", pages,
			n, caught(n, 0.1), caught(n, 0.25), caught(n, 1),
			rec, 100*float64(rec)/float64(pages), caught(rec, 0.1), caught(rec, 0.25), caught(rec, 1))
	}
	// The demo's web (40 hosts, seed 1): what checking costs once peers
	// have a record, one result per host, or per directory for the hosts
	// the manager splits into 8.
	var pagesAll, newFetches, recFetches int
	for _, s := range fixture.DemoSites(40, 1, fixture.DemoOptions{}) {
		parts, size := 1, s.Pages
		if s.Dirs > 0 {
			parts, size = s.Dirs, s.Pages/s.Dirs
		}
		pagesAll += parts * size
		newFetches += parts * v.sampleSize(size, false)
		recFetches += parts * v.sampleSize(size, true)
	}
	t.Logf("demo web: %d pages; new peers re-fetch %.1f %%, recorded peers %.1f %% (one round each)",
		pagesAll, 100*float64(newFetches)/float64(pagesAll), 100*float64(recFetches)/float64(pagesAll))
	if share := float64(recFetches) / float64(pagesAll); share > 0.1 {
		t.Errorf("recorded peers' checks cost %.3f of the demo's pages, want at most 0.1", share)
	}
}
