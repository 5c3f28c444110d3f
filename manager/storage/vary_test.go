package storage

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/task"
)

// rotating is a page that answers every fetch with other text and no
// validators, as a rotating front page or a block of random "featured"
// links does.
type rotating struct{ rnd *rand.Rand }

// fetch returns the page at u as one request sees it.
func (r rotating) fetch(u string) *task.Page {
	words := []string{"market", "weather", "election", "recipe", "festival", "striker", "council", "harbour",
		"museum", "bridge", "orchestra", "summit", "vaccine", "rover", "glacier", "startup", "harvest", "parade"}
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, "%s%d ", words[r.rnd.IntN(len(words))], r.rnd.IntN(50)+i%3)
	}
	return page(u, b.String())
}

// stableSite is n pages with validators under /s<seed>/ of site.example,
// as the web serves them.
func stableSite(seed, n int) []*task.Page {
	out := make([]*task.Page, n)
	for i := range out {
		u := fmt.Sprintf("http://site.example/s%d/p%d", seed, i)
		out[i] = page(u, article(u))
		out[i].ETag = fmt.Sprintf(`"v1-%d"`, i)
	}
	return out
}

// liveWith answers a check as the web does, with the pages at the URLs in
// rot fetched anew each time.
func liveWith(web []*task.Page, rot rotating, urls ...string) func(issuedCheck) []*task.Page {
	return func(ic issuedCheck) []*task.Page {
		out := fetched(ic.urls, web)
		for i, p := range out {
			if slices.Contains(urls, p.URL) {
				out[i] = rot.fetch(p.URL)
			}
		}
		return out
	}
}

// settleWith answers the checks of the result of task id until it is
// settled, at most 10 rounds, and returns the URLs each check re-fetched.
func (r *rig) settleWith(t *testing.T, c *checker, id string, answer func(issuedCheck) []*task.Page) [][]string {
	t.Helper()
	var fetchedURLs [][]string
	for range 10 {
		if r.stored(t, id).State != task.CreditPending {
			return fetchedURLs
		}
		r.checkRound(t, c, answer)
		fetchedURLs = append(fetchedURLs, c.issued[len(c.issued)-1].urls)
	}
	t.Fatalf("result of %s still pending after 10 checks", id)
	return nil
}

// setRecord gives peer a record of streak results validated in a row.
func (r *rig) setRecord(t *testing.T, peer string, streak int) {
	t.Helper()
	if err := r.st.idx.db.Update(func(tx kv.Tx) error {
		return updateRecord(tx, peer, func(rec *PeerRecord) { rec.Streak, rec.Valid = streak, streak })
	}); err != nil {
		t.Fatal(err)
	}
}

// TestRotatingPageNeverFailsHonestResult: an honest result of a site with
// one page that changes on every fetch (no validators) among stable ones
// is confirmed however the sample falls, and its peer's standing grows:
// the rotating page is undecidable, not forged. Before, every checker
// found it "not as uploaded", three such rounds failed the result, reset

// noCheckHeldAgainst fails the test if any check c issued was held
// against its checker.
func (r *rig) noCheckHeldAgainst(t *testing.T, c *checker) {
	t.Helper()
	for _, ic := range c.issued {
		st, _, err := r.st.idx.receipt(ic.id)
		if err != nil {
			t.Fatal(err)
		}
		if rec, _ := r.st.PeerRecord(st.Peer); rec.BadChecks != 0 {
			t.Fatalf("checker %s had a check held against it: %+v", st.Peer, rec)
		}
	}
}

// the peer's streak and counted a strike toward withdrawing its key.
func TestRotatingPageNeverFailsHonestResult(t *testing.T) {
	draw := rand.New(rand.NewPCG(44, 5))
	r, c, failed := validatingRig(t, draw.Float64)
	rot := rotating{rand.New(rand.NewPCG(44, 6))}
	const results = 20
	sampled, rounds := 0, 0
	for seed := range results {
		// Each result is a first crawl of its pages (a page stored
		// before would be drawn apart, as unchanged).
		web := stableSite(seed, 20)
		front := web[seed%len(web)].URL // the rotating page
		crawl := stableSite(seed, 20)
		for i, p := range crawl {
			if p.URL == front {
				crawl[i] = rot.fetch(front)
			}
		}
		up, h := r.client(t)
		peer := h.ID().String()
		r.setRecord(t, peer, 3) // a standing to lose, still checked as a new peer
		tk, env := r.issue(t, seed+1)
		if _, err := up.Upload(t.Context(), delivery(t, tk.ID, env, crawl, nil)); err != nil {
			t.Fatal(err)
		}
		checks := r.settleWith(t, c, tk.ID, liveWith(web, rot, front))
		rounds += len(checks)
		v, found, err := r.st.Verdict(tk.ID)
		if err != nil || !found || v.Verdict != VerdictValid || v.Untold {
			t.Fatalf("result %d: verdict %+v (found %v, %v), want valid", seed, v, found, err)
		}
		if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
			t.Fatalf("result %d: receipt %+v, want confirmed", seed, got)
		}
		if rec, _ := r.st.PeerRecord(peer); rec.Streak != 4 || rec.Invalid != 0 {
			t.Fatalf("result %d: honest peer's record %+v, want its streak grown to 4", seed, rec)
		}
		if !slices.Contains(checks[0], front) {
			if len(checks) != 1 {
				t.Fatalf("result %d: rotating page not sampled, yet %d checks", seed, len(checks))
			}
			continue
		}
		sampled++
		// The first check re-fetched the sample, the next two the
		// rotating page alone; then it was undecidable.
		if len(checks) != 3 || !slices.Equal(checks[1], []string{front}) || !slices.Equal(checks[2], []string{front}) {
			t.Fatalf("result %d: checks re-fetched %v, want the sample, then the rotating page twice", seed, checks)
		}
		if !strings.Contains(v.Reason, "undecidable") {
			t.Fatalf("result %d: verdict reason %q does not say the page was undecidable", seed, v.Reason)
		}
	}
	if sampled < results/2 {
		t.Fatalf("the rotating page was in %d samples of %d; the test proves little", sampled, results)
	}
	if len(*failed) != 0 {
		t.Fatalf("honest peers reported failed: %+v", *failed)
	}
	r.noCheckHeldAgainst(t, c)
	tot, _ := r.st.Totals()
	t.Logf("%d results, the rotating page in %d samples: %d checks, %d pages re-fetched (%d pages uploaded)",
		results, sampled, rounds, tot.CheckFetches, tot.Pages)
}

// TestCloakingSiteCostsNothing: a site that answers every request with
// other text and no validators (#44's "cloaking site") cannot cost the
// honest volunteer who crawled it: every page is undecidable after three
// checks, the result is untold (no credit for pages nobody can confirm,
// as for pages no checker could fetch), and the volunteer keeps its
// streak, with no strike. Before, the result failed after three checks
// and a second such result asked for the volunteer's key.
func TestCloakingSiteCostsNothing(t *testing.T) {
	r, c, failed := validatingRig(t, rand.New(rand.NewPCG(44, 7)).Float64)
	rot := rotating{rand.New(rand.NewPCG(44, 8))}
	up, h := r.client(t)
	peer := h.ID().String()
	r.setRecord(t, peer, 3)
	for seq := 1; seq <= 2; seq++ {
		var urls []string
		var crawl []*task.Page
		for i := range 6 {
			u := fmt.Sprintf("http://site.example/%d/story-%d", seq, i)
			urls = append(urls, u)
			crawl = append(crawl, rot.fetch(u))
		}
		tk, env := r.issue(t, seq)
		if _, err := up.Upload(t.Context(), delivery(t, tk.ID, env, crawl, nil)); err != nil {
			t.Fatal(err)
		}
		checks := r.settleWith(t, c, tk.ID, liveWith(nil, rot, urls...))
		if len(checks) != 3 {
			t.Fatalf("result %d settled after %d checks %v, want 3", seq, len(checks), checks)
		}
		for i, ch := range checks {
			if len(ch) != 6 {
				t.Fatalf("result %d: check %d re-fetched %d pages, want the 6 of the sample", seq, i, len(ch))
			}
		}
		v, found, err := r.st.Verdict(tk.ID)
		if err != nil || !found || v.Verdict != VerdictValid || !v.Untold || !strings.Contains(v.Reason, "6 of 6 pages checked change on every fetch: undecidable") {
			t.Fatalf("result %d: verdict %+v (found %v, %v), want untold: every page undecidable", seq, v, found, err)
		}
		if err := r.st.IssueChecks(t.Context()); err != nil || len(c.issued) != 3*seq {
			t.Fatalf("result %d: %d checks issued after the verdict (%v)", seq, len(c.issued)-3*seq, err)
		}
	}
	if rec, _ := r.st.PeerRecord(peer); rec.Streak != 3 || rec.Invalid != 0 {
		t.Fatalf("volunteer's record %+v after two results of a cloaking site, want its streak of 3 kept", rec)
	}
	if len(*failed) != 0 {
		t.Fatalf("volunteer reported failed: %+v", *failed)
	}
	tot, _ := r.st.Totals()
	if tot.Untold != 2 || tot.Failed != 0 || tot.CheckFetches != 36 {
		t.Fatalf("totals %+v, want 2 untold, none failed, 3 checks of 6 pages each", tot)
	}
	// The checkers' fetches kept to compare leave with the verdict.
	kept := 0
	if err := r.st.idx.db.View(func(tx kv.Tx) error {
		return tx.Bucket(bucketFetches).ForEach(func(_, _ []byte) error { kept++; return nil })
	}); err != nil || kept != 0 {
		t.Fatalf("%d check fetches kept after the verdicts (%v)", kept, err)
	}
	// The checkers told the truth about the site: none pays for it.
	r.noCheckHeldAgainst(t, c)
}

// TestForgedPageBesideRotatingOneCaught: on a stable site without
// validators (where texts half alike match), a page whose text the
// crawler replaced is still caught: the second and third checkers' fetches
// agree with the first's, and all disagree with the upload, so the result
// fails. The rotating page of the same sample is undecidable and adds
// nothing against it. A checker that lies about the forged page (sends
// other text of its own) cannot make it undecidable: it takes three
// checkers whose fetches all disagree, so one liar is not enough.
func TestForgedPageBesideRotatingOneCaught(t *testing.T) {
	for _, c := range []struct {
		name string
		liar bool // the second checker sends its own text for the forged page
		want int  // checks to the verdict
	}{
		{name: "honest checkers", want: 3},
		{name: "a lying checker", liar: true, want: 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ch, failed := validatingRig(t, func() float64 { return 0 }) // the sample is the result's first pages
			r.newCheckers = true                                           // three fetches of the rotating page before a verdict
			rot := rotating{rand.New(rand.NewPCG(44, 9))}
			web := bigSite(10)
			for _, p := range web {
				p.ETag = ""
			}
			forged, front := web[0].URL, web[1].URL
			crawl := bigSite(10)
			for _, p := range crawl {
				p.ETag = ""
			}
			var spam strings.Builder
			for i := range 40 {
				fmt.Fprintf(&spam, "Cheap watches %d shipped overnight from our warehouse to you. ", i)
			}
			crawl[0] = page(forged, spam.String())
			crawl[1] = rot.fetch(front)
			up, h := r.client(t)
			cheater := h.ID().String()
			r.setRecord(t, cheater, 3)
			tk, env := r.issue(t, 1)
			if _, err := up.Upload(t.Context(), delivery(t, tk.ID, env, crawl, nil)); err != nil {
				t.Fatal(err)
			}
			n := 0
			checks := r.settleWith(t, ch, tk.ID, func(ic issuedCheck) []*task.Page {
				n++
				out := liveWith(web, rot, front)(ic)
				if c.liar && n == 2 {
					for i, p := range out {
						if p.URL == forged {
							out[i] = rot.fetch(forged) // text of its own, like no other fetch
						}
					}
				}
				return out
			})
			v, found, err := r.st.Verdict(tk.ID)
			if err != nil || !found || v.Verdict != VerdictInvalid || !strings.Contains(v.Reason, "1 of 9 pages checked change on every fetch") {
				t.Fatalf("verdict %+v (found %v, %v), want invalid, the rotating page undecidable", v, found, err)
			}
			if len(checks) != c.want {
				t.Fatalf("settled after %d checks %v, want %d", len(checks), checks, c.want)
			}
			if !slices.Contains(checks[0], forged) || !slices.Contains(checks[0], front) || len(checks[0]) < 3 {
				t.Fatalf("first check re-fetched %v, want the sample with both pages", checks[0])
			}
			for i, urls := range checks[1:] {
				if !slices.Equal(urls, []string{forged, front}) {
					t.Fatalf("check %d re-fetched %v, want only the two pages in dispute", i+2, urls)
				}
			}
			if got := r.stored(t, tk.ID); got.State != task.CreditRevoked {
				t.Fatalf("receipt %+v, want revoked", got)
			}
			if rec, _ := r.st.PeerRecord(cheater); rec.Streak != 0 || rec.Invalid != 1 || len(*failed) != 1 {
				t.Fatalf("record %+v, failures %v: want the standing reset", rec, *failed)
			}
		})
	}
}

// TestPageSometimesAlikeIsUndecidable: a page whose text is sometimes as
// uploaded and sometimes not (a "featured" block drawn at random) is
// undecidable once two checkers found it otherwise, each other text, and
// a third found it as uploaded: the result is confirmed on its other
// pages after three checks, and neither checker who found it otherwise is
// contradicted. Counting only the checks that found it otherwise, it
// stayed in dispute, took a fourth check, and the verdict held the first
// two checks against their checkers.
func TestPageSometimesAlikeIsUndecidable(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	rot := rotating{rand.New(rand.NewPCG(44, 10))}
	web := stableSite(0, 4)
	const front = "http://site.example/front"
	uploaded := rot.fetch(front)
	crawl := append(stableSite(0, 4), uploaded)
	tk, env := r.issue(t, 1)
	_, peer := r.upload(t, tk.ID, env, crawl)
	n := 0
	checks := r.settleWith(t, c, tk.ID, func(ic issuedCheck) []*task.Page {
		n++
		out := fetched(ic.urls, web)
		for i, p := range out {
			if p.URL != front {
				continue
			}
			if n == 3 {
				cp := *uploaded
				out[i] = &cp // as uploaded, this time
			} else {
				out[i] = rot.fetch(front)
			}
		}
		return out
	})
	if len(checks) != 3 || len(checks[0]) != 5 || !slices.Equal(checks[1], []string{front}) || !slices.Equal(checks[2], []string{front}) {
		t.Fatalf("checks re-fetched %v, want the sample of 5, then the page in dispute twice", checks)
	}
	v, found, err := r.st.Verdict(tk.ID)
	if err != nil || !found || v.Verdict != VerdictValid || v.Untold || !strings.Contains(v.Reason, "1 of 5 pages checked change on every fetch") {
		t.Fatalf("verdict %+v (found %v, %v), want valid, the page undecidable", v, found, err)
	}
	if rec, _ := r.st.PeerRecord(peer); rec.Streak != 1 || len(*failed) != 0 {
		t.Fatalf("crawler's record %+v, failures %v", rec, *failed)
	}
	r.noCheckHeldAgainst(t, c)
}
