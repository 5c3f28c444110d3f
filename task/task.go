package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// MaxEncodedSize bounds an encoded task. Paper 000 caps a task's Pageseen at
// about 400 kB; the rest of a task is small.
const MaxEncodedSize = 1 << 20

// Limits on task fields, so a hostile or corrupt task cannot make a client
// allocate without bound.
const (
	MaxSeeds      = 1000
	MaxFilters    = 64
	MaxURLLength  = 2048
	MaxFilterLen  = 1024
	MaxDepthLimit = 64
)

// Task is one crawl of one channel: a web host, a sub-directory of it, or a
// set of sub-directories (DESIGN §3).
type Task struct {
	// ID names the task uniquely; the manager assigns it.
	ID string `json:"id"`
	// Channel names the channel crawled, for example "news.example.com/w/".
	Channel string `json:"channel"`
	// Seeds are the URLs the crawl starts from: index pages plus inter-site
	// URLs found elsewhere. All seeds share one host.
	Seeds []string `json:"seeds"`
	// Filters are regular expressions; when any are given, a URL is crawled
	// only if it matches at least one of them.
	Filters []string `json:"filters,omitempty"`
	// ExpectedPages sizes URLseen; 0 means unknown.
	ExpectedPages int `json:"expected_pages,omitempty"`
	// MaxDepth is the number of link hops followed from a seed (0 = seeds only).
	MaxDepth int `json:"max_depth"`
	// MaxPages bounds the pages fetched; 0 leaves it to the crawler's default.
	MaxPages int `json:"max_pages,omitempty"`
	// Delay is the politeness wait between requests; 0 leaves it to the
	// crawler's default. robots.txt Crawl-delay may raise it.
	Delay Duration `json:"delay,omitempty"`
	// KnownPages are the content digests of pages already stored (Pageseen):
	// a page whose digest is among them is not re-extracted or re-uploaded.
	KnownPages []Digest `json:"known_pages,omitempty"`
	// KnownInterSite are the digests of inter-site URLs already known, so they
	// are not reported again.
	KnownInterSite []Digest `json:"known_inter_site,omitempty"`
	// Validators carry the ETag and Last-Modified of known pages for
	// conditional GETs.
	Validators []Validator `json:"validators,omitempty"`
	// Interval is the channel's recrawl interval: a task that waited longer
	// than this in a queue is cancelled (paper 000 §4).
	Interval Duration `json:"interval,omitempty"`
	// Issued is when the manager built the task.
	Issued time.Time `json:"issued"`
}

// Validator is what the last crawl learned about one page's freshness.
type Validator struct {
	URL          string `json:"url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// Duration is a time.Duration that encodes as a Go duration string ("1.5s").
type Duration time.Duration

// MarshalJSON encodes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON accepts a duration string ("2s") or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want a string such as \"2s\": %w", err)
	}
	*d = Duration(n)
	return nil
}

// ErrInvalid is wrapped by every validation failure of Decode and Validate.
var ErrInvalid = errors.New("invalid task")

// Encode returns the canonical JSON encoding of t.
func (t *Task) Encode() ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", t.ID, err)
	}
	return b, nil
}

// Decode parses and validates an encoded task. Unknown fields, trailing
// data, oversized input and out-of-range values are errors.
func Decode(b []byte) (*Task, error) {
	if len(b) > MaxEncodedSize {
		return nil, fmt.Errorf("%w: %d bytes exceeds %d", ErrInvalid, len(b), MaxEncodedSize)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var t Task
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after task", ErrInvalid)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Validate checks field ranges. It does not compile filters or parse seeds
// beyond their length: the crawler does that and reports per-URL errors.
func (t *Task) Validate() error {
	switch {
	case t.ID == "" || len(t.ID) > 128:
		return fmt.Errorf("%w: id must be 1 to 128 bytes", ErrInvalid)
	case len(t.Seeds) == 0:
		return fmt.Errorf("%w: no seed URLs", ErrInvalid)
	case len(t.Seeds) > MaxSeeds:
		return fmt.Errorf("%w: %d seeds exceeds %d", ErrInvalid, len(t.Seeds), MaxSeeds)
	case len(t.Filters) > MaxFilters:
		return fmt.Errorf("%w: %d filters exceeds %d", ErrInvalid, len(t.Filters), MaxFilters)
	case t.MaxDepth < 0 || t.MaxDepth > MaxDepthLimit:
		return fmt.Errorf("%w: max depth %d outside 0..%d", ErrInvalid, t.MaxDepth, MaxDepthLimit)
	case t.MaxPages < 0 || t.ExpectedPages < 0:
		return fmt.Errorf("%w: negative page count", ErrInvalid)
	case t.Delay < 0 || t.Interval < 0:
		return fmt.Errorf("%w: negative duration", ErrInvalid)
	}
	for _, s := range t.Seeds {
		if s == "" || len(s) > MaxURLLength {
			return fmt.Errorf("%w: seed URL length %d outside 1..%d", ErrInvalid, len(s), MaxURLLength)
		}
	}
	for _, f := range t.Filters {
		if len(f) > MaxFilterLen {
			return fmt.Errorf("%w: filter longer than %d bytes", ErrInvalid, MaxFilterLen)
		}
	}
	for _, v := range t.Validators {
		if len(v.URL) > MaxURLLength {
			return fmt.Errorf("%w: validator URL longer than %d bytes", ErrInvalid, MaxURLLength)
		}
	}
	return nil
}
