package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// Judging a spot-check: the checker's pages are compared with the stored
// ones page by page (alter.go weighs the texts), the round is recorded
// with the checker's pending receipt, and validate.go's decide settles the
// result once the rounds do.

// judge compares a spot-check's pages with the checked result's and
// settles the result when the rounds decide. The check's pages are not
// stored; asks, what the host asked of the checker, goes to the host's
// lease. from holds the check's lease (Accept): a peer the check had to
// avoid never does, as the lease refuses it.
func (s *Storage) judge(ctx context.Context, t *task.Task, rec channels.Task, from string, pages pageSource, asks channels.Feedback) (*upload.Response, error) {
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
	raw, err := upload.SignReceipt(r, s.opts.Key)
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
	return &upload.Response{Receipt: raw}, nil
}

// unneededCheck ends check task t, whose result no longer waits for it,
// with a receipt of zero; asks goes to the host's lease.
func (s *Storage) unneededCheck(ctx context.Context, t *task.Task, rec channels.Task, from string, asks channels.Feedback) (*upload.Response, error) {
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
