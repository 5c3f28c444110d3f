package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/kv"
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
// nothing else. The result is valid once matching rounds, each weighed
// by its checker's record (checkWeight), outnumber mismatching and
// unconfirmed ones; it is invalid once mismatching rounds
// outnumber matching ones by two and either a trusted checker (one with a
// validated result and no failure or contradicted check) is among them or
// three checkers found it so; otherwise another volunteer checks, up to
// MaxRounds or until every page of the sample is undecidable, after which
// a result is invalid only if mismatching rounds outnumber matching ones.
// Checkers are never the crawler or an earlier checker of the result, nor
// on the network of either (a /24 or /48, or an autonomous system where
// the operator gives a table; the manager aims the checks), so
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
