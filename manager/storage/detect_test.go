package storage

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
	"github.com/hivecrawl/hivecrawl/task"
)

// bigSite is n pages of site.example with validators, as the web serves
// them.
func bigSite(n int) []*task.Page {
	out := make([]*task.Page, n)
	for i := range out {
		u := fmt.Sprintf("http://site.example/p%d", i)
		out[i] = page(u, article(u))
		out[i].ETag = fmt.Sprintf(`"v1-%d"`, i)
	}
	return out
}

// forgeOneInTen returns web's pages with one in ten forged, the forged
// ones first: half invented (pages the host does not have), half real
// URLs with other text under the page's own validators.
func forgeOneInTen(web []*task.Page) []*task.Page {
	k := forgedPages(len(web), 0.1)
	out := make([]*task.Page, len(web))
	for i, p := range web {
		cp := *p
		switch {
		case i < k/2:
			cp = *page(fmt.Sprintf("http://site.example/invented-%d", i), article(fmt.Sprint("invented ", i)))
		case i < k:
			cp = *page(p.URL, article(fmt.Sprint("buy cheap pills ", i)))
			cp.ETag = p.ETag
		}
		out[i] = &cp
	}
	return out
}

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

// TestOneInTenCaught: a result of 100 pages with 10 forged (5 invented, 5
// altered under the real validators), judged 1,000 times by the real
// sampling and comparison against the stored pages, is caught in each
// round with the designed probability: 0.905 for a peer without a record
// (a sample of 20), 0.583 for one with a record (a sample of 8). With a
// fixed sample of 5 pages and rounds failing only when most of their
// pages mismatch, the old rule caught it about 6 times in 1,000.
func TestOneInTenCaught(t *testing.T) {
	src := rand.New(rand.NewPCG(44, 3))
	r, _, _ := validatingRig(t, src.Float64)
	web := bigSite(100)
	forged := forgeOneInTen(web)
	tk, env := r.issue(t, 1)
	_, peer := r.upload(t, tk.ID, env, forged)
	urls := make([]string, len(forged))
	for i, p := range forged {
		urls[i] = p.URL
	}
	entries, err := r.st.LookupAll(urls)
	if err != nil || len(entries) != 100 {
		t.Fatalf("%d of 100 pages indexed (%v)", len(entries), err)
	}
	pages := make([]sampled, 0, len(urls))
	for _, u := range urls {
		pages = append(pages, sampled{URL: u, Entry: entries[u]})
	}
	const runs = 1000
	for _, c := range []struct {
		name   string
		streak int
		n      int
		min    int // caught at least
	}{
		{name: "new peer", streak: 0, n: 20, min: 870},
		{name: "peer with a record", streak: 5, n: 8, min: 520},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := r.st.idx.db.Update(func(tx kv.Tx) error {
				return updateRecord(tx, peer, func(rec *PeerRecord) { rec.Streak = c.streak })
			}); err != nil {
				t.Fatal(err)
			}
			caught, sizes := 0, map[int]int{}
			for range runs {
				sample, _, err := r.st.chooseCheck(peer, pages)
				if err != nil {
					t.Fatal(err)
				}
				sizes[len(sample)]++
				su := make([]string, len(sample))
				for i, p := range sample {
					su[i] = p.URL
				}
				round, err := r.st.compare(sample, pageSlice(fetched(su, web)))
				if err != nil {
					t.Fatal(err)
				}
				if round.Outcome == outcomeMismatch {
					caught++
				}
			}
			if sizes[c.n] != runs {
				t.Errorf("sample sizes %v, want %d pages every time", sizes, c.n)
			}
			want := 1 - missProbability(100, 10, c.n)
			sd := math.Sqrt(runs * want * (1 - want))
			t.Logf("%s: caught %d of %d, designed %.3f (%.0f ± %.0f)", c.name, caught, runs, want, runs*want, sd)
			// Four standard deviations either side of the design, and
			// never below the stated figure's floor.
			if caught < c.min || math.Abs(float64(caught)-runs*want) > 4*sd {
				t.Errorf("caught %d of %d, want %.0f ± %.0f and at least %d", caught, runs, runs*want, 4*sd, c.min)
			}
		})
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

// TestOneForgedPageFailsResult: one forged page in the sample of a peer
// with a record fails its whole result: the credit is revoked, every page
// of the result leaves the index and is quarantined, and the peer's
// standing is reset, so its next result is checked with a new peer's
// sample.
func TestOneForgedPageFailsResult(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 }) // the sample is the result's first pages
	r.newCheckers = true                                          // three checks to the verdict
	web := bigSite(100)
	up, h := r.client(t)
	cheater := h.ID().String()
	if err := r.st.idx.db.Update(func(tx kv.Tx) error {
		return updateRecord(tx, cheater, func(rec *PeerRecord) { rec.Streak, rec.Valid = 5, 5 })
	}); err != nil {
		t.Fatal(err)
	}
	result := make([]*task.Page, len(web))
	for i, p := range web {
		cp := *p
		result[i] = &cp
	}
	result[0] = page("http://site.example/invented", article("invented")) // 1 of the 8 sampled
	tk, env := r.issue(t, 1)
	rc, err := up.Upload(t.Context(), delivery(t, tk.ID, env, result, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := upload.VerifyReceipt(rc, r.key.GetPublic()); err != nil || got.State != task.CreditPending {
		t.Fatalf("receipt %+v (%v), want pending", got, err)
	}
	for i := range 3 {
		r.checkRound(t, c, live(web))
		// The first check re-fetches the recorded peer's sample of 8; the
		// next ones only the page it found not as uploaded, to
		// corroborate it.
		if ic := c.issued[i]; (i == 0 && len(ic.urls) != 8) || (i > 0 && len(ic.urls) != 1) || ic.urls[0] != result[0].URL {
			t.Fatalf("check %d re-fetches %v, want the forged page first (8 pages, then it alone)", i, ic.urls)
		}
	}
	got := r.stored(t, tk.ID)
	if got.State != task.CreditRevoked {
		t.Fatalf("result with one forged page of 8 checked: %+v, want revoked", got)
	}
	for _, p := range result {
		if _, ok, _ := r.st.Lookup(p.URL); ok {
			t.Fatalf("page %s of the failed result still in the index", p.URL)
		}
	}
	q, err := os.ReadFile(filepath.Join(WARCDir(r.dir), QuarantineFile))
	if n := strings.Count(string(q), tk.ID); err != nil || n != len(result) {
		t.Fatalf("quarantine lists %d records of the failed result, want %d (%v)", n, len(result), err)
	}
	rec, _ := r.st.PeerRecord(cheater)
	if rec.Streak != 0 || rec.Invalid != 1 || len(*failed) != 1 {
		t.Fatalf("record %+v, failures %v: want the standing reset", rec, *failed)
	}
	// The next result is checked as a new peer's.
	r.clock = r.clock.Add(time.Hour)
	tk2, env2 := r.issue(t, 2)
	fresh := bigSite(100)
	for _, p := range fresh {
		p.FetchedAt = r.clock
	}
	if _, err := up.Upload(t.Context(), delivery(t, tk2.ID, env2, fresh, nil)); err != nil {
		t.Fatal(err)
	}
	r.checkRound(t, c, live(fresh))
	if ic := c.issued[len(c.issued)-1]; len(ic.urls) != 20 {
		t.Fatalf("next result checked with %d pages, want a new peer's 20", len(ic.urls))
	}
}

// TestChangedSiteNeverFailsHonestResult: an honest result whose site
// changed before the check, in each way a site changes pages, is never
// failed, and its peer keeps a clean record.
func TestChangedSiteNeverFailsHonestResult(t *testing.T) {
	later := t0.Add(time.Hour).Format(http1123)
	for _, c := range []struct {
		name   string
		change func(p *task.Page)
		// whole: every page changed, so no round can confirm the result.
		whole bool
	}{
		{name: "rewritten, new ETag", change: func(p *task.Page) {
			*p = *page(p.URL, article("rewritten "+p.URL))
			p.ETag = `"v2"`
		}},
		{name: "rewritten, later Last-Modified", change: func(p *task.Page) {
			*p = *page(p.URL, article("rewritten "+p.URL))
			p.ETag, p.LastModified = "", later
		}},
		{name: "a paragraph added, no validators", change: func(p *task.Page) {
			*p = *page(p.URL, article(p.URL)+" A late correction was added to the end of this article.")
			p.ETag = ""
		}},
		{name: "removed since another peer's crawl", change: func(p *task.Page) {
			*p = task.Page{URL: p.URL, Status: 404, FetchedAt: t0, Error: "http status 404"}
		}},
		{name: "every page rewritten, new ETags", whole: true, change: func(p *task.Page) {
			*p = *page(p.URL, article("rewritten "+p.URL))
			p.ETag = `"v2"`
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ch, failed := validatingRig(t, func() float64 { return 0 })
			web := bigSite(20)
			// Another peer crawled the site before (its result passed).
			tk0, env0 := r.issue(t, 1)
			r.upload(t, tk0.ID, env0, web)
			r.checkRound(t, ch, live(web))
			// The honest peer's crawl: the same pages, fetched anew.
			r.clock = r.clock.Add(time.Hour)
			crawl := bigSite(20)
			for _, p := range crawl {
				p.FetchedAt = r.clock
			}
			tk, env := r.issue(t, 2)
			_, honest := r.upload(t, tk.ID, env, crawl)
			now := bigSite(20)
			for i, p := range now {
				if c.whole || i%2 == 0 {
					c.change(p)
				}
			}
			for range 5 {
				if r.stored(t, tk.ID).State != task.CreditPending {
					break
				}
				r.checkRound(t, ch, live(now))
			}
			v, found, err := r.st.Verdict(tk.ID)
			if err != nil || !found || v.Verdict != VerdictValid || (!c.whole && v.Untold) {
				t.Fatalf("verdict %+v (found %v, %v), want valid", v, found, err)
			}
			rec, _ := r.st.PeerRecord(honest)
			if rec.Invalid != 0 || len(*failed) != 0 {
				t.Fatalf("honest peer's record %+v, failures %v", rec, *failed)
			}
			if got := r.stored(t, tk.ID); !c.whole && got.State != task.CreditConfirmed {
				t.Fatalf("honest result: %+v, want confirmed", got)
			}
		})
	}
}

// TestDetectionFigures computes the figures docs/developer/validation.md states
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
	t.Log("| pages | new: sample | cost | 1 in 10 | 1 in 4 | all | record: sample | cost | 1 in 10 | 1 in 4 | all |")
	for _, pages := range []int{1, 5, 8, 10, 20, 50, 100, 200, 400, 1000} {
		n, rec := v.sampleSize(pages, false), v.sampleSize(pages, true)
		caught := func(n int, share float64) float64 {
			return 1 - missProbability(pages, forgedPages(pages, share), n)
		}
		t.Logf("| %d | %d | %.1f %% | %.2f | %.2f | %.2f | %d | %.1f %% | %.2f | %.2f | %.2f |", pages,
			n, 100*float64(n)/float64(pages), caught(n, 0.1), caught(n, 0.25), caught(n, 1),
			rec, 100*float64(rec)/float64(pages), caught(rec, 0.1), caught(rec, 0.25), caught(rec, 1))
	}
	// The expected gain of forging k of a result's pages, as a share of
	// its credit C, against uploading only the pages really fetched:
	// (1-q)·C - (1-k/N)·C = (k/N - q)·C, with pages of equal credit.
	t.Log("| pages | forged | new: caught | gain | record: caught | gain |")
	for _, pages := range []int{20, 100, 1000} {
		n, rec := v.sampleSize(pages, false), v.sampleSize(pages, true)
		for _, k := range []int{1, forgedPages(pages, 0.1), forgedPages(pages, 0.25), pages} {
			f := float64(k) / float64(pages)
			qn, qr := 1-missProbability(pages, k, n), 1-missProbability(pages, k, rec)
			t.Logf("| %d | %d | %.2f | %+.2f C | %.2f | %+.2f C |", pages, k, qn, f-qn, qr, f-qr)
		}
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

// TestOwnPageProvesNothing: a page gone (404) counts as removed by the
// site only when another peer's result had stored it; a peer's own
// earlier upload of an invented page does not make it "known", or a
// cheater could seed its inventions and have every check of them read
// "removed since".
func TestOwnPageProvesNothing(t *testing.T) {
	r, _, _ := validatingRig(t, func() float64 { return 0 })
	invented := []*task.Page{page("http://site.example/invented", article("invented"))}
	up, _ := r.client(t)
	known := func(id string) bool {
		t.Helper()
		c, found, err := r.st.idx.pendingCheck(id)
		if err != nil || !found || len(c.Sample) != 1 {
			t.Fatalf("pending check of %s: %+v, %v, %v", id, c, found, err)
		}
		return c.Sample[0].Known
	}
	for round := 1; round <= 2; round++ {
		tk, env := r.issue(t, round)
		if _, err := up.Upload(t.Context(), delivery(t, tk.ID, env, invented, nil)); err != nil {
			t.Fatal(err)
		}
		if known(tk.ID) {
			t.Fatalf("result %d: the peer's own invented page counts as known", round)
		}
	}
	tk, env := r.issue(t, 3)
	r.upload(t, tk.ID, env, invented) // another peer
	if !known(tk.ID) {
		t.Fatalf("a page another peer's result stored does not count as known")
	}
}
