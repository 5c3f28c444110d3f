package storage

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/task"
)

// Corroboration: a page a checker found not as uploaded counts as forged
// only once another checker's fetch of it agrees with that checker's
// (alike by the measure and thresholds the comparison with the upload
// uses: alikeFetches). A page whose text changes on every fetch (a
// rotating front page, random "featured" blocks, no validators) reads as
// not as uploaded to every checker, but their fetches disagree with each
// other too: once three checkers fetched it, two or more found it not as
// uploaded and no two of those agree, the page varies by itself and is
// undecidable. It counts like an inconclusive page in every round, and
// is fetched no more.
//
// Three fetches, not two: with two, one lying checker (a cheater's second
// identity) could turn a forged page undecidable by sending any other
// text. With three, it takes two identities that lie, as it already does
// to outvote one honest checker.
//
// A round with a page not yet corroborated is unconfirmed: it keeps the
// result from being confirmed, as a mismatch did, but cannot fail it. The
// next round fetches only the pages in dispute (found not as uploaded and
// not yet undecidable), so a second opinion costs a page, not a sample.

// outcomeUnconfirmed is a round whose pages not as uploaded no other
// checker has corroborated yet.
const outcomeUnconfirmed = "unconfirmed"

// bucketFetches keeps the checkers' fetches of pages they found not as
// uploaded, while the result is pending: fetchKey → checkFetch.
var bucketFetches = []byte("check-fetches")

// checkFetch is one checker's fetch of a page it found not as uploaded:
// what another checker's fetch is compared with.
type checkFetch struct {
	Status       int         `json:"status"`
	Digest       task.Digest `json:"digest,omitempty"`
	ETag         string      `json:"etag,omitempty"`
	LastModified string      `json:"last_modified,omitempty"`
	Text         string      `json:"text,omitempty"`
}

// fetchKey is the key of check round's fetch of page i of checked's
// sample; fetchPrefix(checked, i) is the prefix of every round's.
func fetchKey(checked string, i int, round string) []byte {
	return append(fetchPrefix(checked, i), round...)
}

func fetchPrefix(checked string, i int) []byte {
	return fmt.Appendf(nil, "%s\x00%05d\x00", checked, i)
}

// alikeFetches reports whether two checkers saw the same page: both were
// told it does not exist, or they got the same body, or texts as alike
// as a page checked against its upload must be to match.
func alikeFetches(a, b checkFetch) bool {
	gone := func(s int) bool { return s == http.StatusNotFound || s == http.StatusGone }
	switch {
	case gone(a.Status) || gone(b.Status):
		return gone(a.Status) && gone(b.Status)
	case a.Status != b.Status:
		return false
	case a.Digest != 0 && a.Digest == b.Digest:
		return true
	}
	// Alike both ways: neither holds what the other lacks beyond what a
	// page changes by itself (alter.go).
	same := (a.ETag != "" && a.ETag == b.ETag) || (a.LastModified != "" && a.LastModified == b.LastModified)
	_, ab := altered(a.Text, b.Text, same)
	_, ba := altered(b.Text, a.Text, same)
	return !ab && !ba
}

// corroborate weighs round, just compared, against the earlier rounds of
// c: each page round found not as uploaded is forged when an earlier
// checker's fetch agrees with round's; each page in dispute that round
// fetched is undecidable when it now meets the rule above. It returns c's
// Forged and Varies updated.
func (s *Storage) corroborate(c checkRec, round checkRound) (forged, varies []int, err error) {
	forged, varies = slices.Clone(c.Forged), slices.Clone(c.Varies)
	for _, i := range append(slices.Clone(round.Mismatched), round.Matched...) {
		mismatched := slices.Contains(round.Mismatched, i)
		disputed := slices.ContainsFunc(c.Rounds, func(r checkRound) bool {
			return r.Task != round.Task && slices.Contains(r.Mismatched, i)
		})
		if slices.Contains(forged, i) || slices.Contains(varies, i) || !mismatched && !disputed {
			continue
		}
		earlier, err := s.idx.fetches(c.Task, i)
		if err != nil {
			return nil, nil, err
		}
		if mine, ok := round.fetches[i]; ok && slices.ContainsFunc(earlier, func(f checkFetch) bool { return alikeFetches(f, mine) }) {
			forged = append(forged, i)
			continue
		}
		// No two fetches not as uploaded agree. Count the checkers.
		against, as := len(earlier), 0
		if mismatched {
			against++
		}
		for _, r := range c.Rounds {
			if r.Task != round.Task && slices.Contains(r.Matched, i) {
				as++
			}
		}
		if !mismatched {
			as++
		}
		if against >= 2 && against+as >= 3 {
			varies = append(varies, i)
		}
	}
	return forged, varies, nil
}

// judged returns the outcome a done round counts for, in the light of
// every round: a mismatch when a page it found not as uploaded is forged,
// unconfirmed when such a page is still in dispute, else a match when it
// matched a page that does not vary by itself, else inconclusive.
func (c checkRec) judged(r checkRound) string {
	if r.Outcome == "" || (len(r.Matched) == 0 && len(r.Mismatched) == 0) {
		return r.Outcome // not done, inconclusive, or judged before pages were listed
	}
	var unconfirmed, matched bool
	for _, i := range r.Mismatched {
		switch {
		case slices.Contains(c.Forged, i):
			return outcomeMismatch
		case !slices.Contains(c.Varies, i):
			unconfirmed = true
		}
	}
	for _, i := range r.Matched {
		matched = matched || !slices.Contains(c.Varies, i)
	}
	switch {
	case unconfirmed:
		return outcomeUnconfirmed
	case matched:
		return outcomeMatch
	}
	return outcomeInconclusive
}

// nextURLs returns the pages the next round of c re-fetches: those in
// dispute if any, else every page of the sample that does not vary by
// itself (none once every page does: nothing is left to tell).
func (c checkRec) nextURLs() []string {
	var disputed, rest []string
	for i, p := range c.Sample {
		if slices.Contains(c.Varies, i) {
			continue
		}
		rest = append(rest, p.URL)
		if slices.ContainsFunc(c.Rounds, func(r checkRound) bool { return slices.Contains(r.Mismatched, i) }) {
			disputed = append(disputed, p.URL)
		}
	}
	if len(disputed) > 0 {
		return disputed
	}
	return rest
}

// fetches returns the kept fetches of page i of checked's sample.
func (x *index) fetches(checked string, i int) ([]checkFetch, error) {
	var out []checkFetch
	err := x.db.View(func(tx kv.Tx) error {
		return kv.ForEachPrefix(tx.Bucket(bucketFetches), fetchPrefix(checked, i), func(k, v []byte) error {
			var f checkFetch
			if err := json.Unmarshal(v, &f); err != nil {
				return fmt.Errorf("decode check fetch %q: %w", k, err)
			}
			out = append(out, f)
			return nil
		})
	})
	return out, err
}

// deleteFetchesTx drops every kept fetch of checked's sample.
func deleteFetchesTx(tx kv.Tx, checked string) error {
	b := tx.Bucket(bucketFetches)
	var keys [][]byte
	err := kv.ForEachPrefix(b, []byte(checked+"\x00"), func(k, _ []byte) error {
		keys = append(keys, slices.Clone(k))
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
