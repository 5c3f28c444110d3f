package channels

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Push-back per host: the answers with which hosts told crawlers to go
// away or that they are in trouble, counted per host so the operator sees
// which sites push back (the status page) and by how much (the metrics,
// by kind only). Counts come from results, a volunteer's word, within the
// bounds of one result's pages.

// AnswerKinds are the page error kinds counted per host: 401, 403, 429
// and 503 answers, other 5xx answers, timeouts and challenges.
var AnswerKinds = []string{"http_401", "http_403", "http_429", "http_503", "http_5xx", "timeout", "challenge"}

// AnswerKind maps a page error kind (crawler.Kind) to the one counted
// for it, ok false when it is not counted.
func AnswerKind(kind string) (string, bool) {
	if slices.Contains(AnswerKinds, kind) {
		return kind, true
	}
	if len(kind) == len("http_500") && strings.HasPrefix(kind, "http_5") {
		return "http_5xx", true
	}
	return "", false
}

// countAnswers adds a result's error counts to hl's.
func (hl *hostLease) countAnswers(errs map[string]int) {
	for k, n := range errs {
		kind, ok := AnswerKind(k)
		if !ok || n <= 0 {
			continue
		}
		if hl.Answers == nil {
			hl.Answers = make(map[string]int)
		}
		hl.Answers[kind] += n
	}
}

// PushBack is one host's push-back.
type PushBack struct {
	Host string `json:"host"`
	// Answers counts its pages by AnswerKinds, over all its crawls.
	Answers map[string]int `json:"answers"`
	// Strikes are its strikes in a row (a crawl stopped to spare it), the
	// last at Struck; RestUntil is when its rest ends (zero when it does
	// not rest).
	Strikes   int       `json:"strikes,omitempty"`
	Struck    time.Time `json:"struck,omitzero"`
	RestUntil time.Time `json:"rest_until,omitzero"`
}

// Total is the answers counted.
func (p PushBack) Total() int {
	n := 0
	for _, v := range p.Answers {
		n += v
	}
	return n
}

// PushBacks returns the n hosts that pushed back most (resting hosts
// first, then by answers counted).
func (d *DB) PushBacks(now time.Time, n int) ([]PushBack, error) {
	var out []PushBack
	err := d.db.View(func(tx kv.Tx) error {
		return tx.Bucket(bucketHosts).ForEach(func(k, v []byte) error {
			var hl hostLease
			if err := json.Unmarshal(v, &hl); err != nil {
				return fmt.Errorf("decode host %s: %w", k, err)
			}
			if len(hl.Answers) == 0 && hl.Strikes == 0 {
				return nil
			}
			p := PushBack{Host: string(k), Answers: hl.Answers, Strikes: hl.Strikes, Struck: hl.Struck}
			if now.Before(hl.Rest) {
				p.RestUntil = hl.Rest
			}
			out = append(out, p)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b PushBack) int {
		if ra, rb := !a.RestUntil.IsZero(), !b.RestUntil.IsZero(); ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Total(), a.Total()), strings.Compare(a.Host, b.Host))
	})
	return out[:min(n, len(out))], nil
}
