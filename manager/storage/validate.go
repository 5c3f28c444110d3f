package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/task"
)

// Spot-check validation (BOINC's adaptive replication, applied to
// crawling). Every result is checked: a sample of its pages, drawn
// without replacement, is re-fetched by another volunteer in a spot-check
// task, which goes through the host's lease like any task, so it never
// runs beside the original crawler and keeps the operator's politeness.
// The sample is as large as it must be (sample.go) for a result with one
// forged page in ten (Forged) to be caught with probability Detect when
// its peer has no record of NewPeer results validated in a row, and
// within Budget of the result's pages when it has one. Each page the
// checker brings back is compared with the stored one:
//
//   - the same body digest, or a text that holds nothing the page does
//     not beyond what a page changes by itself (alter.go), and, when the
//     server's validators (ETag, Last-Modified) say the page did not
//     change, lacks nothing it holds either: a match;
//   - other texts where the page demonstrably changed between the two
//     fetches (other validators, a Last-Modified after the first fetch):
//     inconclusive;
//   - a page the server says does not exist (404, 410): a mismatch,
//     unless another peer's earlier result had stored it (so it existed,
//     and the site removed it since): inconclusive;
//   - anything else: a mismatch; a page the checker could not fetch for
//     another reason (a timeout, a server error, not fetched at all)
//     tells nothing.
//
// A mismatch is a forged page once another checker's fetch of it agrees
// with the first checker's (corroborate.go); a page whose checkers' fetches
// disagree with each other changes on every fetch and is undecidable,
// never held against the crawler. A round that finds a forged page
// mismatches, however many pages of the sample matched; one whose
// mismatches are not yet corroborated is unconfirmed, and the next round
// re-fetches only those pages; a round matches when it found matches and
// nothing else. The result is valid once matching rounds outnumber
// mismatching and unconfirmed ones; it is invalid once mismatching rounds
// outnumber matching ones by two and either a trusted checker (one with a
// validated result and no failure or contradicted check) is among them or
// three checkers found it so; otherwise another volunteer checks, up to
// MaxRounds or until every page of the sample is undecidable, after which
// a result is invalid only if mismatching rounds outnumber matching ones.
// Checkers are never the crawler or an earlier checker of the result, so
// one or two dishonest checkers cannot fail an honest result: they are
// outvoted, and their own check credit is revoked; nor can one make a
// forged page undecidable. (Three or more colluding identities could fail
// an honest result, two pass a forged one; that is the limit of any
// quorum without identities that cost something.)
//
// A valid result's credit is confirmed and extends its peer's streak. An
// invalid one's credit is revoked, all its pages are dropped from the
// index and its WARC records listed in QuarantineFile, and its peer's
// streak is reset, so its next results are checked as a new peer's; a
// peer whose results failed Strikes times is reported to
// Validation.OnInvalid (the manager withdraws its request-signing key).
// A result no round could confirm or disprove (untold: its pages were not
// fetchable, changed before every check, or change on every fetch) earns
// nothing and leaves the index as an invalid one does, without a mark
// against its peer.

// Checker issues spot-check tasks; the manager implements it.
type Checker interface {
	// IssueCheck issues a task re-fetching urls (pages of one host) for
	// the result of task of, run by a peer not in avoid. It returns the
	// new task's ID.
	IssueCheck(ctx context.Context, of string, urls []string, avoid []string) (string, error)
}

// Validation configures spot-checks. The zero value of each field takes
// its default.
type Validation struct {
	Checks Checker
	// NewPeer is how many results in a row a peer must have validated
	// before its results are checked with the smaller sample Budget
	// allows. Default 5.
	NewPeer int
	// Forged and Detect size the sample of a result of a peer without a
	// record: large enough that a result with Forged of its pages forged
	// (at least one page) is caught with probability Detect. Defaults 0.1
	// and 0.9.
	Forged float64
	Detect float64
	// Budget bounds what checking a peer with a record costs: a result of
	// n pages is checked with ⌊Budget × n⌋ of them (at least one, never
	// more than a new peer's sample). Default 0.08, which keeps the
	// re-fetches under 10 % of a recorded peer's pages with room for a
	// second round and for results under 1/Budget pages, which cost one
	// page each.
	Budget float64
	// MaxRounds bounds the checks of one result. Default 5.
	MaxRounds int
	// MaxLost is how many check tasks of one result may be lost (no
	// volunteer ran them) before the result is let through. Default 4.
	MaxLost int
	// Strikes is how many failed results make a peer reported to
	// OnInvalid. Default 2.
	Strikes int
	// OnInvalid is told each time one of peer's results fails, with its
	// failures so far; withdraw is set from Strikes failures on, when the
	// peer should no longer be trusted (its request-signing key
	// withdrawn).
	OnInvalid func(peer string, failures int, withdraw bool)
	// Rand draws the samples, uniform in [0, 1); default a seeded
	// generator.
	Rand func() float64
}

func (v *Validation) defaults() {
	if v.NewPeer <= 0 {
		v.NewPeer = 5
	}
	if !(v.Forged > 0 && v.Forged <= 1) {
		v.Forged = 0.1
	}
	if !(v.Detect > 0 && v.Detect <= 1) {
		v.Detect = 0.9
	}
	if v.Budget <= 0 {
		v.Budget = 0.08
	}
	if v.MaxRounds <= 0 {
		v.MaxRounds = 5
	}
	if v.MaxLost <= 0 {
		v.MaxLost = 4
	}
	if v.Strikes <= 0 {
		v.Strikes = 2
	}
	if v.Rand == nil {
		var mu sync.Mutex
		r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x636865636b))
		v.Rand = func() float64 { mu.Lock(); defer mu.Unlock(); return r.Float64() }
	}
}

// CreditPerCheckedPage is a checker's credit for each page of a sample it
// re-fetched that matched or disproved the stored one, confirmed when its
// check agreed with the verdict.
const CreditPerCheckedPage = 0.1

// Outcomes of a check round.
const (
	outcomeMatch        = "match"
	outcomeMismatch     = "mismatch"
	outcomeInconclusive = "inconclusive"
)

// Verdicts.
const (
	VerdictValid   = "valid"
	VerdictInvalid = "invalid"
)

// sampled is one page of a checked result as the result gave it: its
// index entry, for an unchanged page the one it confirmed.
type sampled struct {
	URL string `json:"url"`
	Entry
	// Unchanged: the crawler reported the page unchanged, so no text was
	// stored with the result; Location is the stored text it confirmed,
	// Task the result that stored it.
	Unchanged bool `json:"unchanged,omitempty"`
	// Known: another peer's earlier result had stored the page, so it
	// existed (a peer's own earlier upload proves nothing).
	Known bool `json:"known,omitempty"`
}

// checkRound is one spot-check of a result.
type checkRound struct {
	Task string `json:"task"`
	// Peer and Outcome are set when the check's result came.
	Peer    string `json:"peer,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	// Match, Mismatch and Inconclusive count the pages of the sample.
	Match, Mismatch, Inconclusive int
	// Matched and Mismatched are the sample's indexes of the pages the
	// check found as uploaded and not as uploaded.
	Matched    []int `json:"matched,omitempty"`
	Mismatched []int `json:"mismatched,omitempty"`
	// fetches are the check's pages not as uploaded, kept in
	// bucketFetches for later checkers' fetches to be compared with.
	fetches map[int]checkFetch
}

// checkRec is a result waiting for its verdict: small, as every tick reads
// all of them.
type checkRec struct {
	Task   string       `json:"task"`
	Peer   string       `json:"peer"`
	Sample []sampled    `json:"sample"`
	Rounds []checkRound `json:"rounds,omitempty"`
	Lost   int          `json:"lost,omitempty"`
	// Recorded: its peer had a record (NewPeer results validated in a
	// row) when it came.
	Recorded bool `json:"recorded,omitempty"`
	// Forged are the sample's indexes of pages two checkers found not as
	// uploaded and alike, Varies those that change on every fetch
	// (corroborate.go).
	Forged []int `json:"forged,omitempty"`
	Varies []int `json:"varies,omitempty"`
	// Written is stored apart (bucketWritten), once: it is read only to
	// quarantine an invalid result.
	Written written `json:"-"`
}

// written is what a checked result put in the operator's output: its
// index entries and its WARC records.
type written struct {
	URLs    []string   `json:"urls,omitempty"`
	Records []Location `json:"records,omitempty"`
}

// Verdict is how a checked result ended.
type Verdict struct {
	Task    string    `json:"task"`
	Peer    string    `json:"peer"`
	Verdict string    `json:"verdict"`
	Reason  string    `json:"reason"`
	Rounds  int       `json:"rounds"`
	At      time.Time `json:"at"`
	// Checkers are the peers whose spot-checks were judged.
	Checkers []string `json:"checkers,omitempty"`
	// Records are the quarantined WARC records of an invalid result.
	Records []Location `json:"records,omitempty"`
	// Untold is set on a valid verdict no spot-check could confirm: every
	// round was done and none matched or disproved a page (the checkers
	// got errors, denials or nothing). Such a result stays, but earns no
	// credit and no standing: a cheater could choose pages a checker
	// cannot fetch (401, 403, robots-disallowed) and make them up.
	Untold bool `json:"untold,omitempty"`
}

// A result is confirmed only by checks that weigh a whole check (BOINC's
// adaptive replication, weighed by standing): a checker with a record
// (NewPeer results validated in a row, and never a failure nor a
// contradicted check) weighs a whole check, one without a record half,
// a suspect nothing. So a cheater's second identity, new, cannot confirm
// its first one's forgery alone: another checker must agree, and an
// honest one finds the forgery. A young network, where no one has a
// record yet, confirms each result with two checks rather than one.
const (
	wholeCheck = 2
	halfCheck  = 1
)

// checkWeight is what a matching check by a peer with record rec weighs.
func (v *Validation) checkWeight(rec PeerRecord) int {
	switch {
	case rec.Suspect():
		return 0
	case rec.Streak >= v.NewPeer:
		return wholeCheck
	}
	return halfCheck
}

// PeerRecord is a peer's validation record.
type PeerRecord struct {
	// Streak counts its results validated in a row since its last failure.
	Streak int `json:"streak"`
	// Valid and Invalid count checked results; Unchecked its results
	// that went without a check (they earned no credit).
	Valid     int `json:"valid"`
	Invalid   int `json:"invalid"`
	Unchecked int `json:"unchecked"`
	// BadChecks counts its spot-checks the verdict contradicted.
	BadChecks int `json:"bad_checks,omitempty"`
	// Lapses counts the host leases it let lapse without a result
	// (Forfeit).
	Lapses int `json:"lapses,omitempty"`
}

// Trusted reports whether a peer's checks weigh more: it had a result
// validated and never a failed result nor a contradicted check.
func (r PeerRecord) Trusted() bool { return r.Valid > 0 && r.Invalid == 0 && r.BadChecks == 0 }

// Suspect reports whether a peer failed a result or a check.
func (r PeerRecord) Suspect() bool { return r.Invalid > 0 || r.BadChecks > 0 }

var (
	bucketChecks   = []byte("checks")   // checked task ID → checkRec, while pending
	bucketWritten  = []byte("written")  // checked task ID → written, while pending
	bucketVerdicts = []byte("verdicts") // checked task ID → Verdict
	bucketRecords  = []byte("records")  // peer ID → PeerRecord
	bucketDeferred = []byte("deferred") // peer ID → check task IDs whose credit waits for its record
)

// QuarantineFile lists, in the WARC directory, the records of results that
// failed validation or that no spot-check could confirm, one "file offset
// task" line each: readers of the WARC files skip them.
const QuarantineFile = "QUARANTINE"

// chooseCheck returns the sample of a result of peer to re-fetch, and
// whether the peer has a record. The pages fetched whole and those
// reported unchanged are drawn apart, each kind uniformly and with its own
// bound: a result with one page in ten forged has one page in ten forged
// in one kind at least, and the bound holds on each kind's credit too, so
// forging the pages that earn most (fetched ones, among many unchanged)
// pays no better than forging any.
func (s *Storage) chooseCheck(peer string, pages []sampled) (sample []sampled, recorded bool, err error) {
	v := s.opts.Validation
	if v == nil || len(pages) == 0 {
		return nil, false, nil
	}
	rec, err := s.idx.peerRecord(peer)
	if err != nil {
		return nil, false, err
	}
	recorded = rec.Streak >= v.NewPeer
	var fetched, unchanged []sampled
	for _, p := range pages {
		if p.Unchanged {
			unchanged = append(unchanged, p)
		} else {
			fetched = append(fetched, p)
		}
	}
	sample = samplePages(fetched, v.sampleSize(len(fetched), recorded), v.Rand)
	sample = append(slices.Clip(sample), samplePages(unchanged, v.sampleSize(len(unchanged), recorded), v.Rand)...)
	return sample, recorded, nil
}

// IssueChecks issues the spot-checks results wait for: a first one, the
// next one after a round that did not decide, or a new one for a check
// task that was lost. The manager calls it every tick.
func (s *Storage) IssueChecks(ctx context.Context) error {
	v := s.opts.Validation
	if v == nil {
		return nil
	}
	recs, err := s.idx.pendingChecks()
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range recs {
		if n := len(c.Rounds); n > 0 && c.Rounds[n-1].Outcome == "" {
			t, err := s.opts.Tasks.Task(c.Rounds[n-1].Task)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if t.State == channels.TaskOpen || t.State == channels.TaskDone {
				continue // running, or its result is being judged
			}
			if err := s.loseRound(c.Task, t.ID, !t.Misrouted); err != nil {
				errs = append(errs, err)
			}
			continue // issued again at the next call
		}
		avoid := []string{c.Peer}
		for _, r := range c.Rounds {
			if r.Peer != "" {
				avoid = append(avoid, r.Peer)
			}
		}
		urls := c.nextURLs()
		if len(urls) == 0 {
			// Every page changes on every fetch: no round can tell more.
			s.mu.Lock()
			_, err := s.decide(c.Task, false)
			s.mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		id, err := v.Checks.IssueCheck(ctx, c.Task, urls, avoid)
		if err != nil {
			errs = append(errs, fmt.Errorf("check result of task %s: %w", c.Task, err))
			continue
		}
		if err := s.idx.addRound(c.Task, checkRound{Task: id}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// loseRound drops a check round whose task was lost; after MaxLost such
// losses (counted unless the overlay delivered the check to a peer that
// had to avoid it, which the manager refused), the result goes through
// unchecked.
func (s *Storage) loseRound(checked, checkTask string, counts bool) error {
	v := s.opts.Validation
	var settle bool
	err := s.idx.db.Update(func(tx kv.Tx) error {
		var c checkRec
		found, err := getJSON(tx.Bucket(bucketChecks), []byte(checked), &c)
		if err != nil || !found {
			return err
		}
		c.Rounds = slices.DeleteFunc(c.Rounds, func(r checkRound) bool { return r.Task == checkTask })
		if counts {
			c.Lost++
		}
		settle = c.Lost >= v.MaxLost
		return putJSON(tx.Bucket(bucketChecks), []byte(checked), c)
	})
	if err != nil || !settle {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.decide(checked, true)
	return err
}

// judge compares a spot-check's pages with the checked result's and
// settles the result when the rounds decide. The check's pages are not
// stored; asks, what the host asked of the checker, goes to the host's
// lease. from holds the check's lease (Accept): a peer the check had to
// avoid never does, as the lease refuses it.
func (s *Storage) judge(ctx context.Context, t *task.Task, rec channels.Task, from string, pages pageSource, asks channels.Feedback) (*Response, error) {
	c, found, err := s.idx.pendingCheck(rec.Checks)
	if err != nil {
		return nil, err
	}
	ri := slices.IndexFunc(c.Rounds, func(r checkRound) bool { return r.Task == t.ID })
	if !found || ri < 0 || c.Rounds[ri].Outcome != "" {
		// Decided already, or a round the result no longer waits for.
		// The check task still ends here, and its host's lease with it:
		// left open, it would hold the host until the lease lapsed.
		return s.unneededCheck(ctx, t, rec, from, asks)
	}
	round, err := s.compare(c.Sample, pages)
	if err != nil {
		return nil, err
	}
	round.Task, round.Peer = t.ID, from
	forged, varies, err := s.corroborate(c, round)
	if err != nil {
		return nil, err
	}
	if rec.State == channels.TaskOpen {
		out, err := s.opts.Tasks.Complete(ctx, t.ID, from, asks)
		if err != nil {
			return nil, fmt.Errorf("record check %s: %w", t.ID, err)
		}
		if !out.First && out.Task.Peer != from {
			return s.duplicate(t, from)
		}
	}
	// Credit only for the pages that told something: a page left out or
	// answered with an error is as cheap to send as it is useless.
	decisive := round.Match + round.Mismatch
	r := task.Receipt{TaskID: t.ID, Channel: t.Channel, Peer: from, IssuedAt: s.opts.Now().UTC(),
		PagesAccepted: decisive, State: task.CreditPending,
		Credits: math.Round(CreditPerCheckedPage*float64(decisive)*100) / 100}
	raw, err := SignReceipt(r, s.opts.Key)
	if err != nil {
		return nil, err
	}
	if err := s.idx.recordRound(c.Task, round, forged, varies, r, raw, min(pages.Len(), len(c.Sample))); errors.Is(err, errNotAwaited) {
		return s.unneededCheck(ctx, t, rec, from, asks)
	} else if err != nil {
		return nil, err
	}
	s.log.Info("Spot-check judged", "task", c.Task, "check", t.ID, "checker", from, "outcome", round.Outcome,
		"match", round.Match, "mismatch", round.Mismatch, "inconclusive", round.Inconclusive)
	v, err := s.decide(c.Task, false)
	if err != nil {
		return nil, err
	}
	if v != nil {
		// The check's own receipt was settled with the verdict.
		if st, _, err := s.idx.receipt(t.ID); err == nil {
			raw = st.Raw
		}
	}
	return &Response{Receipt: raw}, nil
}

// unneededCheck ends check task t, whose result no longer waits for it,
// with a receipt of zero; asks goes to the host's lease.
func (s *Storage) unneededCheck(ctx context.Context, t *task.Task, rec channels.Task, from string, asks channels.Feedback) (*Response, error) {
	if rec.State == channels.TaskOpen {
		if _, err := s.opts.Tasks.Complete(ctx, t.ID, from, asks); err != nil {
			return nil, fmt.Errorf("end check %s: %w", t.ID, err)
		}
	}
	return s.duplicate(t, from)
}

// compare judges one check's pages against the sample. Only the pages
// of the sample are kept while the check's pages are read.
func (s *Storage) compare(sample []sampled, pages pageSource) (checkRound, error) {
	got := make(map[string]*task.Page, len(sample))
	for _, want := range sample {
		got[want.URL] = nil
	}
	err := pages.Each(func(_ int, p *task.Page) error {
		if _, ok := got[p.URL]; ok {
			got[p.URL] = p
		}
		return nil
	})
	if err != nil {
		return checkRound{}, err
	}
	untold := s.untoldBases(sample)
	var r checkRound
	for i, want := range sample {
		p := got[want.URL]
		outcome, why := s.comparePage(want, p, untold)
		s.log.Debug("Spot-check page compared", "url", want.URL, "outcome", outcome, "why", why)
		switch outcome {
		case outcomeMatch:
			r.Match++
			r.Matched = append(r.Matched, i)
		case outcomeMismatch:
			r.Mismatch++
			r.Mismatched = append(r.Mismatched, i)
			if r.fetches == nil {
				r.fetches = map[int]checkFetch{}
			}
			text, _ := export.Text(p) // undecodable: compared as no text
			r.fetches[i] = checkFetch{Status: p.Status, Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified, Text: text}
		default:
			r.Inconclusive++
		}
	}
	switch {
	case r.Mismatch > 0: // one forged page fails the whole result
		r.Outcome = outcomeMismatch
	case r.Match > 0:
		r.Outcome = outcomeMatch
	default:
		r.Outcome = outcomeInconclusive
	}
	return r, nil
}

// comparePage compares one stored page with the checker's fetch of it,
// and says why it judged so; untold is untoldBases of the sample.
func (s *Storage) comparePage(want sampled, p *task.Page, untold map[string]string) (outcome, why string) {
	switch {
	case p == nil:
		return outcomeInconclusive, "not fetched" // stopped, disallowed, cut short
	case (p.Status == http.StatusNotFound || p.Status == http.StatusGone) && want.Known:
		// Another peer's crawl stored it, so it existed: the site removed it.
		return outcomeInconclusive, fmt.Sprintf("status %d, removed since an earlier crawl", p.Status)
	case p.Status == http.StatusNotFound || p.Status == http.StatusGone:
		return outcomeMismatch, fmt.Sprintf("status %d", p.Status) // the page the result claimed is not there
	case p.Error != "" || p.Status != http.StatusOK:
		return outcomeInconclusive, fmt.Sprintf("status %d, error %q", p.Status, p.Error) // a timeout, a server error: tells nothing
	}
	if p.Digest == want.Digest {
		return outcomeMatch, "same body"
	}
	if why := untold[want.Task]; want.Unchanged && why != "" {
		return outcomeInconclusive, why
	}
	unchanged := (want.ETag != "" && p.ETag == want.ETag) || (want.LastModified != "" && p.LastModified == want.LastModified)
	changed := !unchanged && (want.ETag != "" && p.ETag != "" && p.ETag != want.ETag ||
		modifiedAfter(p.LastModified, want.Fetched))
	if want.File == "" {
		// No stored text (a page without any): only the digest and
		// validators tell. A page reported unchanged is compared with the
		// stored text it confirmed, as a fetched one is with its own.
		if unchanged {
			return outcomeMismatch, "another body under the same validators"
		}
		return outcomeInconclusive, "another body, no stored text to compare"
	}
	stored, err := s.readAt(want.Location, 0)
	if err != nil {
		s.log.Warn("Spot-check cannot read the stored page", "url", want.URL, "err", err)
		return outcomeInconclusive, "stored page unreadable"
	}
	text, err := export.Text(p)
	if err != nil {
		return outcomeMismatch, "text does not decode"
	}
	why, bad := altered(stored.Text, text, unchanged)
	switch {
	case !bad:
		return outcomeMatch, "text as on the page"
	case changed:
		return outcomeInconclusive, "changed since: " + why
	}
	return outcomeMismatch, fmt.Sprintf("%s, unchanged %v", why, unchanged)
}

// untoldBases returns, for each result that stored text the sample's
// unchanged pages confirmed, why that text tells nothing about the
// crawler that confirmed it ("" when it does), each result read once: a
// sample's unchanged pages mostly confirm one earlier result.
func (s *Storage) untoldBases(sample []sampled) map[string]string {
	out := map[string]string{}
	for _, want := range sample {
		if _, done := out[want.Task]; want.Unchanged && !done {
			out[want.Task] = s.untoldBase(want.Task)
		}
	}
	return out
}

// untoldBase says why the text a page reported unchanged confirmed, stored
// by the result of task id, tells nothing about the crawler that
// confirmed it: that result failed validation, waits for its own check,
// or no check could confirm it. A 304 is true of the validators the
// crawler was given; judged against text another peer forged, an honest
// volunteer would pay for the forgery (the demo: 5 honest results failed
// on hosts whose previous round a sybil had forged, re-crawled while that
// round waited for its check).
func (s *Storage) untoldBase(id string) string {
	v, found, err := s.idx.verdict(id)
	switch {
	case err != nil:
		return "the confirmed text's verdict unreadable"
	case found && v.Verdict == VerdictInvalid:
		return "the text it confirmed failed validation"
	case found && v.Untold:
		return "the text it confirmed was never confirmed"
	case found:
		return ""
	}
	if _, pending, err := s.idx.pendingCheck(id); err != nil || pending {
		return "the text it confirmed waits for its own check"
	}
	return ""
}

// modifiedAfter reports whether an HTTP Last-Modified value is after t.
func modifiedAfter(lastModified string, t time.Time) bool {
	if lastModified == "" || t.IsZero() {
		return false
	}
	lm, err := http.ParseTime(lastModified)
	return err == nil && lm.After(t.Add(time.Second))
}

// decide settles checked's result when its rounds decide (or force, for
// one that could not be checked), with s.mu held. It returns the verdict,
// nil when undecided.
func (s *Storage) decide(checked string, force bool) (*Verdict, error) {
	v := s.opts.Validation
	c, found, err := s.idx.pendingCheck(checked)
	if err != nil || !found {
		return nil, err
	}
	// Each round counts for what it found in the light of every round:
	// a page not as uploaded fails a result only once another checker's
	// fetch corroborates it (corroborate.go).
	var match, mismatch, unconfirmed, done, weight int
	trustedMismatch := false
	for i, r := range c.Rounds {
		c.Rounds[i].Outcome = c.judged(r)
		switch c.Rounds[i].Outcome {
		case outcomeMatch:
			match++
			rec, err := s.idx.peerRecord(r.Peer)
			if err != nil {
				return nil, err
			}
			weight += v.checkWeight(rec)
		case outcomeUnconfirmed:
			unconfirmed++
		case outcomeMismatch:
			mismatch++
			rec, err := s.idx.peerRecord(r.Peer)
			if err != nil {
				return nil, err
			}
			trustedMismatch = trustedMismatch || rec.Trusted()
		}
		if r.Outcome != "" {
			done++
		}
	}
	// Nothing left to re-fetch: every page of the sample varies by itself.
	exhausted := len(c.nextURLs()) == 0 && len(c.Rounds) == done
	var (
		verdict, reason string
		untold          bool
	)
	switch {
	case match > mismatch+unconfirmed && weight >= wholeCheck:
		verdict = VerdictValid
		reason = fmt.Sprintf("%d of %d spot-checks matched", match, done)
	case mismatch >= match+2 && (trustedMismatch || mismatch >= 3):
		verdict = VerdictInvalid
		reason = fmt.Sprintf("%d of %d spot-checks found pages that were not as uploaded", mismatch, done)
	case force:
		verdict = VerdictValid
		reason = fmt.Sprintf("let through: %d spot-check tasks were lost", c.Lost)
	case exhausted || done >= v.MaxRounds && len(c.Rounds) == done:
		if mismatch > match {
			verdict = VerdictInvalid
			reason = fmt.Sprintf("%d of %d spot-checks found pages that were not as uploaded", mismatch, done)
		} else {
			verdict = VerdictValid
			reason = fmt.Sprintf("no spot-check disproved it (%d matched, %d could not tell)", match, done-match-mismatch)
			if match == 0 {
				untold = true
				reason = fmt.Sprintf("no spot-check could tell (%d rounds): not credited, not served", done)
			}
		}
	default:
		return nil, nil
	}
	if n := len(c.Varies); n > 0 {
		reason += fmt.Sprintf("; %d of %d pages checked change on every fetch: undecidable, not held against the crawler", n, len(c.Sample))
	}
	out := Verdict{Task: c.Task, Peer: c.Peer, Verdict: verdict, Reason: reason, Rounds: done, At: s.opts.Now().UTC(), Untold: untold}
	for _, r := range c.Rounds {
		if r.Peer != "" {
			out.Checkers = append(out.Checkers, r.Peer)
		}
	}
	failures, err := s.idx.settle(c, &out, s.opts.Key, s.opts.Manager)
	if err != nil {
		return nil, err
	}
	s.log.Info("Result validated", "task", c.Task, "peer", c.Peer, "verdict", verdict, "reason", reason)
	if verdict == VerdictInvalid || untold {
		if err := s.writeQuarantine(); err != nil {
			s.log.Warn("Quarantine list not written", "err", err)
		}
	}
	if verdict == VerdictInvalid {
		if v.OnInvalid != nil {
			v.OnInvalid(c.Peer, failures, failures >= v.Strikes)
		}
	}
	return &out, nil
}

// Verdict returns the verdict on the result of task id; found is false
// while it is pending or when it was never checked.
func (s *Storage) Verdict(id string) (Verdict, bool, error) { return s.idx.verdict(id) }

// Verdicts returns every verdict given.
func (s *Storage) Verdicts() ([]Verdict, error) { return s.idx.verdicts() }

// Forfeit records that peer let a host's lease lapse without a result
// (it stopped renewing, or its crawl stalled) and resets its streak: its
// next results are checked as a new peer's. A lapse is what an attacker
// who squats hosts pays, and an honest volunteer whose machine died
// mid-crawl pays the same small price: more of its pages re-fetched.
func (s *Storage) Forfeit(peer, why string) error {
	err := s.idx.db.Update(func(tx kv.Tx) error {
		return updateRecord(tx, peer, func(r *PeerRecord) { r.Lapses++; r.Streak = 0 })
	})
	if err != nil {
		return fmt.Errorf("record that %s %s: %w", peer, why, err)
	}
	return nil
}

// PeerRecord returns peer's validation record.
func (s *Storage) PeerRecord(peer string) (PeerRecord, error) { return s.idx.peerRecord(peer) }

// writeQuarantine rewrites QuarantineFile from the verdicts.
func (s *Storage) writeQuarantine() error {
	vs, err := s.idx.verdicts()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# WARC records of results that failed validation or that no spot-check could confirm: file offset task\n")
	for _, v := range vs {
		for _, l := range v.Records {
			fmt.Fprintf(&b, "%s %d %s\n", l.File, l.Offset, v.Task)
		}
	}
	return atomicfile.WriteFile(filepath.Join(WARCDir(s.opts.Dir), QuarantineFile), []byte(b.String()), 0o644)
}
