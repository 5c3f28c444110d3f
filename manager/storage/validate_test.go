package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// issuedCheck is a spot-check task the fake manager issued.
type issuedCheck struct {
	id    string
	env   []byte
	urls  []string
	avoid []string
}

// checker issues spot-check tasks into the rig's channel database, as the
// manager does, and keeps them for the test to answer.
type checker struct {
	r      *rig
	issued []issuedCheck
}

func (c *checker) IssueCheck(_ context.Context, of string, urls []string, avoid []string) (string, error) {
	id := fmt.Sprintf("check/%d", len(c.issued))
	tk := &task.Task{ID: id, Channel: c.r.channel, Seeds: urls, MaxPages: len(urls), Issued: c.r.clock}
	env, err := envelope.Seal(tk, c.r.key)
	if err != nil {
		return "", err
	}
	rec := channels.Task{ID: id, Channel: c.r.channel, Issued: c.r.clock, Deadline: c.r.clock.Add(time.Hour), Checks: of, Avoid: avoid}
	if err := c.r.db.IssueCheck(rec); err != nil {
		return "", err
	}
	c.issued = append(c.issued, issuedCheck{id: id, env: env, urls: urls, avoid: avoid})
	return id, nil
}

// failure is one OnInvalid call.
type failure struct {
	peer     string
	failures int
	withdraw bool
}

// validatingRig is a rig whose storage checks every result (draw returns
// the random draws; 0 checks everything).
func validatingRig(t *testing.T, draw func() float64) (*rig, *checker, *[]failure) {
	t.Helper()
	c := &checker{}
	var failed []failure
	r := newRigWith(t, func(o *Options) {
		o.Validation = &Validation{Checks: c, Rand: draw,
			OnInvalid: func(p string, n int, w bool) { failed = append(failed, failure{p, n, w}) }}
	})
	c.r = r
	return r, c, &failed
}

// article returns a page text of about 120 words, distinct per seed.
func article(seed string) string {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%s sentence %d tells readers something new. ", seed, i)
	}
	return b.String()
}

// madeUp returns six invented pages of site.example under path prefix.
func madeUp(prefix string) []*task.Page {
	var out []*task.Page
	for i := range 6 {
		out = append(out, page(fmt.Sprintf("http://site.example%s%d", prefix, i), article(fmt.Sprint("made up ", prefix, i))))
	}
	return out
}

// site is the four pages of the honest crawl, as the web serves them.
func site() []*task.Page {
	var out []*task.Page
	for _, path := range []string{"", "a", "b", "c"} {
		p := page("http://site.example/"+path, article("page "+path))
		p.ETag = `"v1-` + path + `"`
		out = append(out, p)
	}
	return out
}

// upload sends pages as the result of the task env from a new peer and
// returns its receipt and peer ID.
func (r *rig) upload(t *testing.T, id string, env []byte, pages []*task.Page) (task.Receipt, string) {
	t.Helper()
	up, h := r.client(t)
	return r.uploadFrom(t, up, h, id, env, pages)
}

// uploadFrom is upload from the peer of up and h.
func (r *rig) uploadFrom(t *testing.T, up *upload.Uploader, h *host.Host, id string, env []byte, pages []*task.Page) (task.Receipt, string) {
	t.Helper()
	raw, err := up.Upload(context.Background(), delivery(t, id, env, pages, nil))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := upload.VerifyReceipt(raw, r.key.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	return rc, h.ID().String()
}

// stored returns the storage module's current receipt of task id.
func (r *rig) stored(t *testing.T, id string) task.Receipt {
	t.Helper()
	rc, found, err := r.st.Receipt(id)
	if err != nil || !found {
		t.Fatalf("receipt of %s: found %v, %v", id, found, err)
	}
	return rc
}

// checkRound issues the next spot-check and answers it with the pages
// answer returns for it.
func (r *rig) checkRound(t *testing.T, c *checker, answer func(issuedCheck) []*task.Page) (task.Receipt, string) {
	t.Helper()
	n := len(c.issued)
	if err := r.st.IssueChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(c.issued) != n+1 {
		t.Fatalf("%d spot-checks issued, want %d", len(c.issued), n+1)
	}
	ic := c.issued[n]
	up, h := r.client(t)
	if !r.newCheckers {
		r.giveRecord(t, h.ID().String())
	}
	return r.uploadFrom(t, up, h, ic.id, ic.env, answer(ic))
}

// checkUntilSettled runs check rounds answered by answer until the result
// of task id is no longer pending, at most rounds of them, and returns
// how many ran.
func (r *rig) checkUntilSettled(t *testing.T, c *checker, id string, answer func(issuedCheck) []*task.Page, rounds int) int {
	t.Helper()
	for n := range rounds {
		if r.stored(t, id).State != task.CreditPending {
			return n
		}
		r.checkRound(t, c, answer)
	}
	return rounds
}

// giveRecord gives peer a record: NewPeer results validated in a row.
func (r *rig) giveRecord(t *testing.T, peer string) {
	t.Helper()
	n := r.st.opts.Validation.NewPeer
	if err := r.st.idx.db.Update(func(tx kv.Tx) error {
		return updateRecord(tx, peer, func(rec *PeerRecord) { rec.Streak, rec.Valid = n, n })
	}); err != nil {
		t.Fatal(err)
	}
}

// live answers a check as a checker fetching the web would, from pages.
func live(pages []*task.Page) func(issuedCheck) []*task.Page {
	return func(ic issuedCheck) []*task.Page { return fetched(ic.urls, pages) }
}

// fetched returns the sample as a checker fetching the live site sees it.
func fetched(sample []string, live []*task.Page) []*task.Page {
	by := map[string]*task.Page{}
	for _, p := range live {
		by[p.URL] = p
	}
	var out []*task.Page
	for _, u := range sample {
		if p, ok := by[u]; ok {
			cp := *p
			out = append(out, &cp)
			continue
		}
		out = append(out, &task.Page{URL: u, Status: 404, FetchedAt: t0, Error: "http status 404"})
	}
	return out
}

// TestSpotCheckConfirmsHonestResult: a new peer's result is pending until
// another volunteer re-fetched a sample and found it as uploaded; then its
// credit is confirmed, as is the checker's, and the peer's streak grows.
func TestSpotCheckConfirmsHonestResult(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	rc, crawler := r.upload(t, tk.ID, env, site())
	if rc.State != task.CreditPending || rc.Credits < 4 {
		t.Fatalf("receipt of a new peer's result %+v, want pending credit", rc)
	}
	if err := r.st.IssueChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	ic := c.issued[0]
	if len(ic.urls) != 4 || len(ic.avoid) != 1 || ic.avoid[0] != crawler {
		t.Fatalf("spot-check %+v: want a sample of 4 pages avoiding %s", ic, crawler)
	}
	// Issuing again while the check is open issues nothing more.
	if err := r.st.IssueChecks(context.Background()); err != nil || len(c.issued) != 1 {
		t.Fatalf("%d checks issued while one is open (%v)", len(c.issued), err)
	}
	cu, ch := r.client(t)
	r.giveRecord(t, ch.ID().String()) // a checker without one weighs half a check
	crc, checker := r.uploadFrom(t, cu, ch, ic.id, ic.env, fetched(ic.urls, site()))
	if crc.Peer != checker || crc.State != task.CreditConfirmed || crc.Credits != 0.4 {
		t.Fatalf("checker's receipt %+v", crc)
	}
	if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed || got.Credits != rc.Credits {
		t.Fatalf("result's receipt after a matching check %+v", got)
	}
	v, found, err := r.st.Verdict(tk.ID)
	if err != nil || !found || v.Verdict != VerdictValid {
		t.Fatalf("verdict %+v %v %v", v, found, err)
	}
	rec, _ := r.st.PeerRecord(crawler)
	if rec.Streak != 1 || rec.Valid != 1 {
		t.Fatalf("record %+v", rec)
	}
	cs, _ := r.st.Contributors()
	for _, ct := range cs {
		if ct.Pending != 0 || ct.Revoked != 0 {
			t.Fatalf("contributor %+v keeps pending or revoked credit", ct)
		}
	}
	tot, _ := r.st.Totals()
	if tot.Checked != 1 || tot.Passed != 1 || tot.CheckFetches != 4 || len(*failed) != 0 {
		t.Fatalf("totals %+v, failures %v", tot, *failed)
	}
	// The checker's pages were compared, not stored.
	if types, _ := warcRecords(t, r.dir); len(types) != 5 {
		t.Fatalf("%d WARC records, want warcinfo and the 4 pages", len(types))
	}
}

// TestSpotCheckRevokesInventedPages: a result of invented pages fails
// three checks by peers without a record (the pages are not there), so its
// credit is revoked, its pages leave the index, its records are listed in
// the quarantine file, and the manager is told.
func TestSpotCheckRevokesInventedPages(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	r.newCheckers = true
	tk, env := r.issue(t, 1)
	forged := madeUp("/invented-")
	rc, cheater := r.upload(t, tk.ID, env, forged)
	if rc.State != task.CreditPending {
		t.Fatalf("receipt %+v, want pending", rc)
	}
	web := site() // the invented URLs do not exist there
	first, _ := r.checkRound(t, c, live(web))
	if first.State != task.CreditPending {
		t.Fatalf("after one mismatching check the checker's receipt is %+v, want pending", first)
	}
	if got := r.stored(t, tk.ID); got.State != task.CreditPending {
		t.Fatalf("one mismatching check settled the result: %+v", got)
	}
	r.checkRound(t, c, live(web))
	if avoid := c.issued[1].avoid; len(avoid) != 2 {
		t.Fatalf("second check avoids %v, want the crawler and the first checker", avoid)
	}
	if got := r.stored(t, tk.ID); got.State != task.CreditPending {
		t.Fatalf("two checkers without a record settled the result: %+v", got)
	}
	second, _ := r.checkRound(t, c, live(web))
	got := r.stored(t, tk.ID)
	if got.State != task.CreditRevoked || !strings.Contains(got.Reason, "3 of 3") {
		t.Fatalf("result's receipt after three mismatching checks %+v", got)
	}
	// The checkers found a forgery, but none has a record yet: a "not
	// there" is as easily forged as a page, so their credit waits for a
	// verdict on their own results (TestDeferredCheckCredit).
	if second.State != task.CreditPending || r.stored(t, c.issued[0].id).State != task.CreditPending {
		t.Fatalf("checkers' receipts %+v %+v, want pending", second, r.stored(t, c.issued[0].id))
	}
	for _, p := range forged {
		if _, ok, _ := r.st.Lookup(p.URL); ok {
			t.Fatalf("forged page %s still in the index", p.URL)
		}
	}
	q, err := os.ReadFile(filepath.Join(WARCDir(r.dir), QuarantineFile))
	if err != nil || strings.Count(string(q), tk.ID) != len(forged) {
		t.Fatalf("quarantine file lists %d records of %s, want %d (%v):\n%s", strings.Count(string(q), tk.ID), tk.ID, len(forged), err, q)
	}
	if len(*failed) != 1 || (*failed)[0].peer != cheater || (*failed)[0].withdraw {
		t.Fatalf("failures %+v, want one for %s without withdrawal yet", *failed, cheater)
	}
	cs, _ := r.st.Contributors()
	for _, ct := range cs {
		if ct.Peer == cheater && (ct.Credits != 0 || ct.Revoked != rc.Credits || ct.Pending != 0) {
			t.Fatalf("cheater's totals %+v", ct)
		}
	}
	rec, _ := r.st.PeerRecord(cheater)
	if rec.Invalid != 1 || rec.Streak != 0 {
		t.Fatalf("cheater's record %+v", rec)
	}
}

// TestSpotCheckToleratesChangedPages: pages that changed between the two
// fetches (new validators, a later Last-Modified, or much of the text the
// same) do not fail an honest result.
func TestSpotCheckToleratesChangedPages(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	later := site()
	for i, p := range later {
		switch i {
		case 0: // rewritten since, and says so
			txt := article("rewritten " + p.URL)
			*p = *page(p.URL, txt)
			p.ETag, p.LastModified = `"v2"`, t0.Add(time.Hour).Format(http1123)
		case 1: // a paragraph added, no validators
			txt := article("page a") + " A late correction was added to the end of this article."
			*p = *page(p.URL, txt)
			p.ETag = ""
		}
	}
	r.checkRound(t, c, live(later))
	if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
		t.Fatalf("result with pages that really changed: %+v", got)
	}
	if len(*failed) != 0 {
		t.Fatalf("failures %v", *failed)
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

// TestSpotCheckFailsAlteredText: a real crawl whose text was altered fails
// when the server's validators say the page did not change.
func TestSpotCheckFailsAlteredText(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	altered := site()
	for _, p := range altered {
		etag := p.ETag
		*p = *page(p.URL, article("buy cheap pills at example dot com"))
		p.ETag = etag
	}
	r.upload(t, tk.ID, env, altered)
	r.checkUntilSettled(t, c, tk.ID, live(site()), 3)
	if got := r.stored(t, tk.ID); got.State != task.CreditRevoked {
		t.Fatalf("altered result: %+v", got)
	}
}

// TestLyingCheckerOutvoted: a checker that reports an honest result's
// pages wrong is outvoted by the next two; the result is confirmed and the
// lying checker's own credit revoked.
func TestLyingCheckerOutvoted(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	_, liar := r.checkRound(t, c, func(ic issuedCheck) []*task.Page {
		return fetched(ic.urls, nil) // "nothing there"
	})
	if got := r.stored(t, tk.ID); got.State != task.CreditPending {
		t.Fatalf("one lying check settled the result: %+v", got)
	}
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditPending {
		t.Fatalf("one check each way settled the result: %+v", got)
	}
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
		t.Fatalf("result after 2 of 3 checks matched: %+v", got)
	}
	if lied := r.stored(t, c.issued[0].id); lied.State != task.CreditRevoked {
		t.Fatalf("lying checker's receipt %+v", lied)
	}
	if rec, _ := r.st.PeerRecord(liar); rec.BadChecks != 1 {
		t.Fatalf("liar's record %+v", rec)
	}
	if len(*failed) != 0 {
		t.Fatalf("an honest result was reported failed: %v", *failed)
	}
}

// TestRecordShrinksSample: every result is checked; once a peer has
// NewPeer results validated in a row, its results are checked with the
// smaller sample the budget allows, and a failure sends it back to a new
// peer's; a peer failing Strikes times is reported for withdrawal.
func TestRecordShrinksSample(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0.99 })
	up, h := r.client(t)
	peer := h.ID().String()
	// result uploads the site's pages as the result of round, has it
	// checked rounds times with answers from web, and returns its receipt
	// and the size of each check's sample.
	result := func(round int, web []*task.Page, rounds int) (task.Receipt, []int) {
		t.Helper()
		tk, env := r.issue(t, round)
		raw, err := up.Upload(context.Background(), delivery(t, tk.ID, env, site(), nil))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := upload.VerifyReceipt(raw, r.key.GetPublic())
		if err != nil {
			t.Fatal(err)
		}
		if rc.State != task.CreditPending {
			t.Fatalf("result %d: %+v, want pending: every result is checked", round, rc)
		}
		var sizes []int
		for range rounds {
			if r.stored(t, tk.ID).State != task.CreditPending {
				break
			}
			r.checkRound(t, c, live(web))
			sizes = append(sizes, len(c.issued[len(c.issued)-1].urls))
		}
		return r.stored(t, tk.ID), sizes
	}
	for round := 1; round <= 5; round++ {
		if rc, sizes := result(round, site(), 1); rc.State != task.CreditConfirmed || sizes[0] != 4 {
			t.Fatalf("result %d of a new peer: %+v, sample %v; want confirmed after checking all 4 pages", round, rc, sizes)
		}
	}
	if rec, _ := r.st.PeerRecord(peer); rec.Streak != 5 {
		t.Fatalf("record after 5 validated results: %+v", rec)
	}
	// With a record: one page of 4 checked, and it is not there; two
	// checkers with a record agreeing on it settle it.
	if rc, sizes := result(6, nil, 3); rc.State != task.CreditRevoked || !slices.Equal(sizes, []int{1, 1}) {
		t.Fatalf("result of a peer with a record: %+v, samples %v; want revoked after two checks of 1 page", rc, sizes)
	}
	// The failure reset the record: a new peer's sample again.
	if rc, sizes := result(7, nil, 3); rc.State != task.CreditRevoked || !slices.Equal(sizes, []int{4, 4}) {
		t.Fatalf("result after a failure: %+v, samples %v; want revoked after two checks of all 4 pages", rc, sizes)
	}
	if len(*failed) != 2 || !(*failed)[1].withdraw || (*failed)[1].failures != 2 {
		t.Fatalf("failures %+v, want the second to ask for withdrawal", *failed)
	}
	tot, _ := r.st.Totals()
	if tot.Unchecked != 0 || tot.Checked != 7 || tot.Passed != 5 || tot.Failed != 2 {
		t.Fatalf("totals %+v", tot)
	}
	if tot.RecordedPages != 4 || tot.RecordedCheckFetches != 2 {
		t.Fatalf("totals %+v: want the recorded result's 4 pages and 2 rounds of 1 page", tot)
	}
}

// TestLostChecksLetResultThrough: a result whose check tasks no volunteer
// ran is let through after MaxLost of them.
func TestLostChecksLetResultThrough(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	for i := range 4 {
		if err := r.st.IssueChecks(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(c.issued) != i+1 {
			t.Fatalf("%d checks issued after %d lost", len(c.issued), i)
		}
		r.clock = r.clock.Add(2 * time.Hour)
		if _, err := r.db.Expire(r.clock, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := r.st.IssueChecks(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	got := r.stored(t, tk.ID)
	if got.State != task.CreditConfirmed || !strings.Contains(got.Reason, "lost") {
		t.Fatalf("result after 4 lost checks: %+v", got)
	}
}

// TestTrustedCheckerDecidesSooner: two mismatching checks fail a result
// when one checker has a validated record; two checkers without one need a
// third.
func TestTrustedCheckerDecidesSooner(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	// A peer earns a record: its result is validated.
	trusted, th := r.client(t)
	tk1, env1 := r.issue(t, 1)
	if _, err := trusted.Upload(context.Background(), delivery(t, tk1.ID, env1, site(), nil)); err != nil {
		t.Fatal(err)
	}
	r.checkRound(t, c, live(site()))
	if rec, _ := r.st.PeerRecord(th.ID().String()); !rec.Trusted() {
		t.Fatalf("record after a validated result: %+v", rec)
	}
	// A forged result, checked first by that peer, then by a new one.
	tk2, env2 := r.issue(t, 2)
	r.upload(t, tk2.ID, env2, []*task.Page{page("http://site.example/made-up", article("made up"))})
	if err := r.st.IssueChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	ic := c.issued[len(c.issued)-1]
	if _, err := trusted.Upload(context.Background(), delivery(t, ic.id, ic.env, fetched(ic.urls, site()), nil)); err != nil {
		t.Fatal(err)
	}
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, tk2.ID); got.State != task.CreditRevoked {
		t.Fatalf("forged result after two mismatching checks, one trusted: %+v", got)
	}
}

// TestUnchangedClaimsNeedKnownPages: "unchanged" pages earn a little credit
// without text, so storage accepts the claim only for pages it holds: a
// count inflated with unchanged claims for other URLs earns nothing.
func TestUnchangedClaimsNeedKnownPages(t *testing.T) {
	r := newRig(t)
	tk, env := r.issue(t, 1)
	pages := site()
	for i := range 20 {
		pages = append(pages, &task.Page{URL: fmt.Sprintf("http://site.example/claimed-%d", i), Status: 200, FetchedAt: t0,
			Digest: task.DigestString(fmt.Sprint(i)), Unchanged: true})
	}
	rc, _ := r.upload(t, tk.ID, env, pages)
	if rc.PagesAccepted != 4 || rc.PagesNew != 4 || rc.Credits >= 5 {
		t.Fatalf("receipt of 4 pages and 20 unchanged claims for unknown URLs: %+v", rc)
	}
	// Claims for pages it holds are accepted in the next round.
	tk2, env2 := r.issue(t, 2)
	var again []*task.Page
	for _, p := range site() {
		again = append(again, &task.Page{URL: p.URL, Status: 304, FetchedAt: t0, Digest: p.Digest, Unchanged: true})
	}
	rc2, _ := r.upload(t, tk2.ID, env2, again)
	if rc2.PagesAccepted != 4 || rc2.Credits != Credits(0, 0, 4, 0) {
		t.Fatalf("receipt of 4 unchanged known pages: %+v", rc2)
	}
}

// unchangedAgain uploads, as the result of a new task from a new peer,
// every page of site() reported unchanged (304 under the stored ETag),
// and returns the task's ID.
func (r *rig) unchangedAgain(t *testing.T, seq int) string {
	t.Helper()
	tk, env := r.issue(t, seq)
	var again []*task.Page
	for _, p := range site() {
		again = append(again, &task.Page{URL: p.URL, Status: 304, FetchedAt: t0, ETag: p.ETag, Unchanged: true})
	}
	r.upload(t, tk.ID, env, again)
	return tk.ID
}

// TestSpotCheckOfUnchangedPagesReadsStoredText: pages reported unchanged
// are checked against the stored text they confirmed. Pages that changed
// a little after the crawl, and say so, match it; before, with only
// digests and validators to compare, such a round told nothing, and
// single-page checks of unchanged results could stay undecided round
// after round.
func TestSpotCheckOfUnchangedPagesReadsStoredText(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
		t.Fatalf("first crawl after its check: %+v", got)
	}

	id := r.unchangedAgain(t, 2)
	later := site()
	for _, p := range later {
		etag := p.ETag
		*p = *page(p.URL, article("page "+strings.TrimPrefix(p.URL, "http://site.example/"))+" A late correction was added to the end of this article.")
		p.ETag, p.LastModified = etag+"-2", t0.Add(time.Hour).Format(http1123)
	}
	r.checkRound(t, c, live(later))
	if got := r.stored(t, id); got.State != task.CreditConfirmed {
		t.Fatalf("unchanged claims of pages edited after the crawl, after one check: %+v", got)
	}
	if len(*failed) != 0 {
		t.Fatalf("failures %v", *failed)
	}
}

// TestSpotCheckFailsFalseUnchangedClaim: a crawler that reports pages
// unchanged that had been rewritten before it fetched them (their
// Last-Modified says so) fails; with digests and validators alone, the
// rounds told nothing.
func TestSpotCheckFailsFalseUnchangedClaim(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	r.checkRound(t, c, live(site()))

	id := r.unchangedAgain(t, 2)
	rewritten := site()
	for _, p := range rewritten {
		var b strings.Builder
		for i := range 40 {
			fmt.Fprintf(&b, "Cheap watches %d shipped overnight from our warehouse to %s. ", i, p.URL)
		}
		*p = *page(p.URL, b.String())
		p.ETag, p.LastModified = "", t0.Add(-time.Hour).Format(http1123) // a new ETag would say "changed", not when
	}
	r.checkUntilSettled(t, c, id, live(rewritten), 3)
	if got := r.stored(t, id); got.State != task.CreditRevoked {
		t.Fatalf("false unchanged claims after three checks: %+v", got)
	}
}

// TestUnchangedOverForgedTextNotHeldAgainstCrawler: an honest crawler
// re-crawls a host while the previous round, a forger's, waits for its
// check, and finds every page unchanged (304 under the validators it was
// given): its pages confirm the forger's text. Checked against the live
// site they must not fail it: they tell nothing about it while the text
// they confirmed waits for its check, nor once that failed. In the demo, 5
// honest results failed this way on hosts a sybil had forged.
func TestUnchangedOverForgedTextNotHeldAgainstCrawler(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	forged := site()
	for i, p := range forged {
		etag := p.ETag
		*p = *page(p.URL, article(fmt.Sprint("forged ", i)))
		p.ETag = etag // the live page's validators, kept
	}
	tk, env := r.issue(t, 1)
	_, forger := r.upload(t, tk.ID, env, forged)
	honest := r.unchangedAgain(t, 2)
	// Every check issued is answered from the live site by a checker
	// with a record, until both results are settled.
	for round := 0; round < 8 && (r.stored(t, tk.ID).State == task.CreditPending || r.stored(t, honest).State == task.CreditPending); round++ {
		n := len(c.issued)
		if err := r.st.IssueChecks(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, ic := range c.issued[n:] {
			u, h := r.client(t)
			r.giveRecord(t, h.ID().String())
			r.uploadFrom(t, u, h, ic.id, ic.env, fetched(ic.urls, site()))
		}
	}
	if got := r.stored(t, tk.ID); got.State != task.CreditRevoked {
		t.Fatalf("the forger's result %+v, want revoked", got)
	}
	if v, _, _ := r.st.Verdict(honest); v.Verdict == VerdictInvalid {
		t.Fatalf("the honest crawler's result failed for the forger's text: %+v", v)
	}
	for _, f := range *failed {
		if f.peer != forger {
			t.Fatalf("an honest peer was told a result failed: %+v", f)
		}
	}
}

// TestDeferredCheckCredit: a checker without a record that found a result
// false is confirmed once a result of its own passes, and revoked if one
// fails.
func TestDeferredCheckCredit(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	up := func() (*upload.Uploader, string) { u, h := r.client(t); return u, h.ID().String() }
	answer := func(u *upload.Uploader, pages func(issuedCheck) []*task.Page) string {
		t.Helper()
		if err := r.st.IssueChecks(context.Background()); err != nil {
			t.Fatal(err)
		}
		ic := c.issued[len(c.issued)-1]
		if _, err := u.Upload(context.Background(), delivery(t, ic.id, ic.env, pages(ic), nil)); err != nil {
			t.Fatal(err)
		}
		return ic.id
	}
	good, goodID := up()
	bad, _ := up()
	// good had a check contradicted once: its credit for a check that
	// found a forgery still comes once its own result passes.
	if err := r.st.idx.db.Update(func(tx kv.Tx) error {
		return updateRecord(tx, goodID, func(rec *PeerRecord) { rec.BadChecks = 1 })
	}); err != nil {
		t.Fatal(err)
	}
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, []*task.Page{page("http://site.example/made-up", article("made up"))})
	goodCheck := answer(good, live(site()))
	badCheck := answer(bad, live(site()))
	answer(func() *upload.Uploader { u, _ := up(); return u }(), live(site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditRevoked {
		t.Fatalf("forged result: %+v", got)
	}
	// good's own result passes; bad's own result is forged and fails.
	tk2, env2 := r.issue(t, 2)
	if _, err := good.Upload(context.Background(), delivery(t, tk2.ID, env2, site(), nil)); err != nil {
		t.Fatal(err)
	}
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, goodCheck); got.State != task.CreditConfirmed {
		t.Fatalf("check credit of a checker whose result passed: %+v", got)
	}
	tk3, env3 := r.issue(t, 3)
	if _, err := bad.Upload(context.Background(), delivery(t, tk3.ID, env3, []*task.Page{page("http://site.example/also-made-up", article("x"))}, nil)); err != nil {
		t.Fatal(err)
	}
	r.checkUntilSettled(t, c, tk3.ID, live(site()), 3)
	if got := r.stored(t, badCheck); got.State != task.CreditRevoked {
		t.Fatalf("check credit of a checker whose result failed: %+v", got)
	}
}

// TestNewCheckerPaidOnceItsOwnResultPasses: a checker without a record
// that found an honest result as uploaded is paid once a result of its
// own passes, and never if one fails. A cheater that checks others
// honestly while forging its own results kept its checks' credit when
// caught (the demo's sybil did: 0.90 credit confirmed at the result's
// verdict, 11 s before its own forgery failed).
func TestNewCheckerPaidOnceItsOwnResultPasses(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	newChecker := func(tk *task.Task, env []byte) (check string, u *upload.Uploader, h *host.Host) {
		t.Helper()
		r.upload(t, tk.ID, env, site())
		if err := r.st.IssueChecks(context.Background()); err != nil {
			t.Fatal(err)
		}
		ic := c.issued[len(c.issued)-1]
		u, h = r.client(t)
		rc, _ := r.uploadFrom(t, u, h, ic.id, ic.env, fetched(ic.urls, site()))
		if rc.State != task.CreditPending {
			t.Fatalf("a new checker's receipt %+v, want pending", rc)
		}
		// Its match weighs half: a checker with a record settles it.
		r.checkUntilSettled(t, c, tk.ID, live(site()), 3)
		if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
			t.Fatalf("honest result %+v, want confirmed", got)
		}
		if got := r.stored(t, ic.id); got.State != task.CreditPending {
			t.Fatalf("the new checker's credit at the verdict %+v, want pending until its own result's", got)
		}
		return ic.id, u, h
	}
	tk, env := r.issue(t, 1)
	forger, fu, _ := newChecker(tk, env)
	tk2, env2 := r.issue(t, 2)
	honest, hu, _ := newChecker(tk2, env2)

	// The forger's own result is caught; the honest checker's passes.
	tk3, env3 := r.issue(t, 3)
	if _, err := fu.Upload(context.Background(), delivery(t, tk3.ID, env3, []*task.Page{page("http://site.example/made-up", article("made up"))}, nil)); err != nil {
		t.Fatal(err)
	}
	r.checkUntilSettled(t, c, tk3.ID, live(site()), 3)
	if got := r.stored(t, tk3.ID); got.State != task.CreditRevoked {
		t.Fatalf("forged result %+v, want revoked", got)
	}
	if got := r.stored(t, forger); got.State != task.CreditRevoked {
		t.Fatalf("the caught forger's credit for an honest check %+v, want revoked", got)
	}
	tk4, env4 := r.issue(t, 4)
	if _, err := hu.Upload(context.Background(), delivery(t, tk4.ID, env4, site(), nil)); err != nil {
		t.Fatal(err)
	}
	r.checkUntilSettled(t, c, tk4.ID, live(site()), 3)
	if got := r.stored(t, honest); got.State != task.CreditConfirmed {
		t.Fatalf("the honest new checker's credit once its own result passed %+v, want confirmed", got)
	}
}

// TestUselessCheckEarnsNothing: a check that leaves the sample's pages
// out or answers them with errors tells nothing and earns nothing; the
// result waits for another check.
func TestUselessCheckEarnsNothing(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	rc, _ := r.checkRound(t, c, func(ic issuedCheck) []*task.Page {
		var out []*task.Page
		for _, u := range ic.urls[:2] {
			out = append(out, &task.Page{URL: u, Status: 503, FetchedAt: t0, Error: "http status 503"})
		}
		return out // the other pages left out
	})
	if rc.Credits != 0 || rc.PagesAccepted != 0 {
		t.Fatalf("receipt of a check that told nothing: %+v", rc)
	}
	if got := r.stored(t, tk.ID); got.State != task.CreditPending {
		t.Fatalf("result after a check that told nothing: %+v", got)
	}
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
		t.Fatalf("result after a matching check: %+v", got)
	}
}

// TestUnneededCheckEnds: a check whose result no longer waits for it (its
// round was dropped as lost while the checker still ran it) ends with a
// receipt of zero, and the check task ends too: left open, it would hold
// its host's lease until the lease lapsed.
func TestUnneededCheckEnds(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	if err := r.st.IssueChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	late := c.issued[0]
	if err := r.st.loseRound(tk.ID, late.id, true); err != nil {
		t.Fatal(err)
	}
	r.checkRound(t, c, live(site())) // the next check settles the result
	if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
		t.Fatalf("result: %+v", got)
	}
	rc, _ := r.upload(t, late.id, late.env, fetched(late.urls, site()))
	if rc.Credits != 0 {
		t.Fatalf("receipt of a check no longer awaited: %+v", rc)
	}
	if rec, err := r.db.Task(late.id); err != nil || rec.State != channels.TaskDone {
		t.Fatalf("check task after its late result: %+v, %v", rec, err)
	}
}

// TestReplayedPagesRefused: pages of an older result uploaded again as a
// later task's result (fetched before that task was issued) are not
// accepted, so a replay earns nothing whether or not the pages changed.
func TestReplayedPagesRefused(t *testing.T) {
	r := newRig(t)
	tk1, env1 := r.issue(t, 1)
	old := site()
	r.upload(t, tk1.ID, env1, old)
	r.clock = r.clock.Add(24 * time.Hour)
	tk2, env2 := r.issue(t, 2)
	var replayed []*task.Page
	for _, p := range old {
		q := *p
		q.Text = []byte(article("changed since " + p.URL)) // as if new, with old dates
		q.TextBytes, q.Digest = len(q.Text), task.DigestString(string(q.Text))
		replayed = append(replayed, &q)
	}
	rc, _ := r.upload(t, tk2.ID, env2, replayed)
	if rc.PagesAccepted != 0 || rc.Credits != 0 {
		t.Fatalf("receipt of a replayed result: %+v", rc)
	}
	fresh := site()
	for _, p := range fresh {
		p.FetchedAt = r.clock.Add(time.Minute)
	}
	tk3, env3 := r.issue(t, 3)
	if rc, _ := r.upload(t, tk3.ID, env3, fresh); rc.PagesAccepted != 4 {
		t.Fatalf("receipt of a fresh result: %+v", rc)
	}
}

// TestOnePageOneCredit: a page sent many times in one upload, or under
// other spellings of its URL, is stored, indexed and credited once, under
// its canonical URL; a spot-check of one copy cannot vouch for a thousand.
func TestOnePageOneCredit(t *testing.T) {
	r := newRig(t)
	tk, env := r.issue(t, 1)
	home := site()[1] // http://site.example/a
	var pages []*task.Page
	for range 1000 {
		c := *home
		pages = append(pages, &c)
	}
	for _, spelling := range []string{"http://site.example/a#top", "http://SITE.example/%61", "http://site.example./a?utm_source=x"} {
		c := *home
		c.URL = spelling
		pages = append(pages, &c)
	}
	rc, _ := r.upload(t, tk.ID, env, pages)
	if rc.PagesNew != 1 || rc.PagesAccepted != 1 {
		t.Fatalf("receipt of one page sent 1,003 times: %+v; want one new page", rc)
	}
	tot, err := r.st.Totals()
	if err != nil {
		t.Fatal(err)
	}
	if tot.Pages != 1 || tot.Records != 1 {
		t.Fatalf("totals %+v; want one page, one record", tot)
	}
	if _, ok, err := r.st.Lookup("http://site.example/a"); err != nil || !ok {
		t.Fatalf("page not indexed under its canonical URL: %v, %v", ok, err)
	}
}

// TestUntoldResultEarnsNothing: pages a checker cannot fetch (here 403 to
// every checker) can neither be confirmed nor disproved. A cheater could
// choose such pages and make them up, so a result no round could tell
// about earns no credit and no standing, and its pages are not served:
// they leave the index and their records are quarantined.
func TestUntoldResultEarnsNothing(t *testing.T) {
	r, c, failed := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	_, peer := r.upload(t, tk.ID, env, madeUp("/members/"))
	forbidden := func(ic issuedCheck) []*task.Page {
		var out []*task.Page
		for _, u := range ic.urls {
			out = append(out, &task.Page{URL: u, Status: 403, FetchedAt: r.clock, Error: "http status 403"})
		}
		return out
	}
	for range 10 {
		if r.stored(t, tk.ID).State != task.CreditPending {
			break
		}
		r.checkRound(t, c, forbidden)
	}
	got := r.stored(t, tk.ID)
	if got.State != task.CreditRevoked {
		t.Fatalf("receipt %+v; want revoked: no check could tell", got)
	}
	v, found, err := r.st.Verdict(tk.ID)
	if err != nil || !found || v.Verdict != VerdictValid || !v.Untold {
		t.Fatalf("verdict %+v, %v, %v; want valid and untold", v, found, err)
	}
	rec, err := r.st.PeerRecord(peer)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Valid != 0 || rec.Streak != 0 || rec.Invalid != 0 || len(*failed) != 0 {
		t.Fatalf("peer record %+v, failures %v; want neither for nor against", rec, *failed)
	}
	for _, p := range madeUp("/members/") {
		if e, ok, err := r.st.Lookup(p.URL); err != nil || ok {
			t.Errorf("made-up page %s still served (%+v, %v)", p.URL, e, err)
		}
	}
	if len(v.Records) == 0 {
		t.Errorf("verdict %+v lists no WARC records to quarantine", v)
	}
	q, err := os.ReadFile(filepath.Join(WARCDir(r.dir), QuarantineFile))
	if err != nil || !strings.Contains(string(q), tk.ID) {
		t.Errorf("quarantine list %q (%v) does not name %s", q, err, tk.ID)
	}
	if tot, err := r.st.Totals(); err != nil || tot.Untold != 1 || tot.Passed != 0 {
		t.Errorf("totals %+v, %v; want 1 untold, 0 passed", tot, err)
	}
}

// TestNewCheckerWeighsHalf: a checker without a record weighs half a
// check, so a new peer's result found as uploaded by one such checker
// stays pending, and a second one's agreement confirms it; a suspect
// checker (a failed result of its own) weighs nothing.
func TestNewCheckerWeighsHalf(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	r.newCheckers = true
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditPending {
		t.Fatalf("one matching check by a new peer settled the result: %+v", got)
	}
	// A suspect's agreement adds nothing.
	if err := r.st.IssueChecks(t.Context()); err != nil {
		t.Fatal(err)
	}
	ic := c.issued[len(c.issued)-1]
	su, sh := r.client(t)
	if err := r.st.idx.db.Update(func(tx kv.Tx) error {
		return updateRecord(tx, sh.ID().String(), func(rec *PeerRecord) { rec.Invalid = 1 })
	}); err != nil {
		t.Fatal(err)
	}
	r.uploadFrom(t, su, sh, ic.id, ic.env, fetched(ic.urls, site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditPending {
		t.Fatalf("a suspect's agreement settled the result: %+v", got)
	}
	r.checkRound(t, c, live(site()))
	if got := r.stored(t, tk.ID); got.State != task.CreditConfirmed {
		t.Fatalf("two matching checks by new peers: %+v, want confirmed", got)
	}
	if v, _, _ := r.st.Verdict(tk.ID); v.Rounds != 3 {
		t.Fatalf("verdict after %d rounds, want 3", v.Rounds)
	}
}

// TestSybilPairNeverConfirmed: a cheater's second identity, new, answers
// the check of its first identity's forged result with the forged pages:
// the result is not confirmed by it, the next checker fetches the site
// and finds the forgery, and the result fails with no credit to either
// identity. (On one network, the second identity is not even chosen:
// manager TestCheckersOfAnotherNetwork.)
func TestSybilPairNeverConfirmed(t *testing.T) {
	for _, recorded := range []bool{false, true} {
		name := map[bool]string{false: "new cheater", true: "cheater with a record"}[recorded]
		t.Run(name, func(t *testing.T) {
			r, c, _ := validatingRig(t, func() float64 { return 0 })
			tk, env := r.issue(t, 1)
			forged := madeUp("/invented-")
			up, h := r.client(t)
			cheater := h.ID().String()
			if recorded {
				r.giveRecord(t, cheater)
			}
			if _, err := up.Upload(t.Context(), delivery(t, tk.ID, env, forged, nil)); err != nil {
				t.Fatal(err)
			}
			// The sybil, new, confirms what its twin uploaded.
			r.newCheckers = true
			_, sybil := r.checkRound(t, c, func(ic issuedCheck) []*task.Page { return fetched(ic.urls, forged) })
			r.newCheckers = false
			if got := r.stored(t, tk.ID); got.State != task.CreditPending {
				t.Fatalf("the sybil's check settled the forged result: %+v", got)
			}
			n := r.checkUntilSettled(t, c, tk.ID, live(site()), 4)
			got := r.stored(t, tk.ID)
			if got.State != task.CreditRevoked {
				t.Fatalf("forged result after the sybil and %d honest checks: %+v, want revoked", n, got)
			}
			if sc := r.stored(t, c.issued[0].id); sc.State != task.CreditRevoked {
				t.Fatalf("sybil's check credit %+v, want revoked", sc)
			}
			cs, _ := r.st.Contributors()
			for _, ct := range cs {
				if (ct.Peer == cheater || ct.Peer == sybil) && ct.Credits != 0 {
					t.Fatalf("%s confirmed %v credits", ct.Peer, ct.Credits)
				}
			}
			t.Logf("revoked after the sybil's check and %d honest ones", n)
		})
	}
}

// A spot-check's completion carries what the host asked of the checker
// (its wait, from robots.txt's Crawl-delay, and its addresses) to the
// host's lease, as a result's does: an empty one would tell the lease the
// host asks for no wait, and the next crawler would start right after
// the checker's last request.
func TestCheckCarriesHostAsks(t *testing.T) {
	r, c, _ := validatingRig(t, func() float64 { return 0 })
	tk, env := r.issue(t, 1)
	r.upload(t, tk.ID, env, site())
	if err := r.st.IssueChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	ic := c.issued[0]
	cu, _ := r.client(t)
	d := delivery(t, ic.id, ic.env, fetched(ic.urls, site()), nil)
	d.Result.HostWait, d.Result.HostAddrs = task.Duration(2*time.Second), []string{"192.0.2.7"}
	if _, err := cu.Upload(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	v, ok := r.opts.Tasks.(dbTasks).feedback.Load(ic.id)
	if !ok {
		t.Fatal("the check was not completed")
	}
	if fb := v.(channels.Feedback); fb.HostWait != 2*time.Second || !slices.Equal(fb.HostAddrs, d.Result.HostAddrs) {
		t.Errorf("the check completed with host wait %v and addresses %v, want 2s and %v", fb.HostWait, fb.HostAddrs, d.Result.HostAddrs)
	}
}
