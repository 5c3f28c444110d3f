package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
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
	// MaxTargetDim bounds the dimension of a task's target point.
	MaxTargetDim = 16
	// MaxPolicyLen bounds each string of a task's politeness policy.
	MaxPolicyLen = 256
	// MaxKnownList bounds KnownPages and KnownInterSite. The manager lists
	// known pages only for small channels and sends a Filter for others;
	// the limit leaves room for tasks of older managers.
	MaxKnownList = 1 << 16
	// MaxValidators bounds Validators; the manager sends far fewer
	// (manager/channels picks them).
	MaxValidators = 1 << 14
)

// Task is one crawl of one channel: a web host, a sub-directory of it, or a
// set of sub-directories (design.md §3).
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
	// a page whose digest is among them, or in KnownFilter, is not
	// re-extracted or re-uploaded. The manager lists them only for small
	// channels and pieces; local tasks may list them too.
	KnownPages []Digest `json:"known_pages,omitempty"`
	// KnownFilter is Pageseen for channels too large to list: a Bloom
	// filter of the known digests, bounded whatever the host's size (see
	// Filter for what a false positive costs).
	KnownFilter *Filter `json:"known_filter,omitempty"`
	// KnownInterSite are the digests of inter-site URLs already known, so they
	// are not reported again.
	KnownInterSite []Digest `json:"known_inter_site,omitempty"`
	// Validators are the known pages this crawl revisits: the crawler
	// queues each at its depth, whether or not a link leads to it, and
	// fetches it with a conditional GET when it has an ETag or a
	// Last-Modified. A page that answers 304 is not downloaded, and its
	// links are not followed: the pages they lead to are listed here
	// themselves, or in Skip.
	Validators []Validator `json:"validators,omitempty"`
	// Skip is a Bloom filter of the digests (DigestString) of the known
	// page URLs this crawl leaves alone: found through a link, such a page
	// is neither fetched nor reported. The manager lists the pages it
	// recrawls in Validators and puts the others here (per-page recrawl
	// frequencies). A false positive leaves a new page for a later crawl.
	Skip *Filter `json:"skip,omitempty"`
	// Interval is the channel's recrawl interval: a task that waited longer
	// than this in a queue is cancelled (paper 000 §4).
	Interval Duration `json:"interval,omitempty"`
	// Issued is when the manager built the task.
	Issued time.Time `json:"issued"`
	// Lease is the task's lease on its web host (design.md §8): the crawler
	// works on the host only while the lease is live. Tasks built outside a
	// network (`hivecrawl crawl`, local mode) carry none.
	Lease Lease `json:"lease,omitzero"`
	// Target is the host's point in the CAN space: the overlay queues the
	// task only at the peer whose zone holds it, or at a neighbour of that
	// peer by load balancing. Signed with the rest, so a member cannot
	// re-aim a genuine task at other zones.
	Target []float64 `json:"target,omitempty"`
	// Policy is the operator's politeness policy for this crawl; a
	// volunteer may crawl slower, never faster or under another name.
	Policy Policy `json:"policy,omitzero"`
	// Resume, set on a continuation task, is where the crawl its first
	// volunteer stopped stood: the crawler starts from it instead of from
	// the seeds (which still name the host).
	Resume *Rest `json:"resume,omitempty"`
	// Raw asks the crawler to upload, with each page whose text it
	// uploads, the HTTP response body and header fields (Page.Raw and
	// Page.Header), for the operator's WARC response records. Only an
	// operator who asked for them sets it (`hivecrawl manager
	// --store-raw`); clients older than the field refuse such tasks.
	Raw bool `json:"raw,omitempty"`
	// Purpose is what the channel is crawled for, read against the
	// site's content signals (robots.txt and response headers): a page
	// whose signals refuse it is not stored. Empty means PurposeSearch;
	// a client refuses a task of a purpose it does not know.
	Purpose string `json:"purpose,omitempty"`
	// Pinned says the manager aimed the task at one member, the holder
	// of its target (a spot-check at the checker it chose): that member
	// queues it and never balances or shares it, and the manager grants
	// its lease to that holder alone, not to a peer it was passed on to.
	// Clients older than the field refuse such tasks.
	Pinned bool `json:"pinned,omitempty"`
}

// Purposes (Task.Purpose), named as content signal categories name them.
const (
	// PurposeSearch: building a search index and answering searches with
	// links to the pages, the only purpose Hivecrawl crawls for today.
	PurposeSearch = "search"
)

// PurposeOf returns t's purpose, PurposeSearch when it names none.
func (t *Task) PurposeOf() string {
	if t.Purpose == "" {
		return PurposeSearch
	}
	return t.Purpose
}

// Lease is a crawler's right to work on one web host for a time. The
// manager grants at most one lease per host that can still be live: all
// channels and pieces of a host share it, one task after another.
type Lease struct {
	// Host is the leased host (host[:port], lower case).
	Host string `json:"host"`
	// Epoch numbers the host's leases; a later grant has a larger epoch,
	// so a claim or report for an older one is known as stale (fencing).
	Epoch uint64 `json:"epoch"`
	// Expires is when the lease ends unless the manager renews it. A task
	// not started by then is not started at all, and one running stops
	// before it.
	Expires time.Time `json:"expires"`
}

// Live reports whether the lease is still valid at now.
func (l Lease) Live(now time.Time) bool {
	return l.Host != "" && now.Before(l.Expires)
}

// Policy is the operator's politeness policy for one crawl.
type Policy struct {
	// UserAgent is the whole User-Agent header sent to web sites, a
	// product token with version and contact URL, for example
	// "Hivecrawl/1.4 (+https://operator.example/bot)".
	UserAgent string `json:"user_agent,omitempty"`
	// Token is the product token robots.txt groups are matched against.
	Token string `json:"token,omitempty"`
	// SignatureAgent is the URL of the origin serving the operator's key
	// directory (/.well-known/http-message-signatures-directory), sent as
	// the Signature-Agent header of signed requests.
	SignatureAgent string `json:"signature_agent,omitempty"`
}

// Validator is a known page to revisit and what the last crawl learned
// about its freshness.
type Validator struct {
	URL          string `json:"url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Depth is the link hops from a seed at which the page was found; its
	// links, when it changed, are followed from there.
	Depth int `json:"depth,omitempty"`
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
	case t.Purpose != "" && t.Purpose != PurposeSearch:
		return fmt.Errorf("%w: purpose %q is not one this client knows (update it)", ErrInvalid, t.Purpose)
	}
	switch {
	case len(t.Target) > MaxTargetDim:
		return fmt.Errorf("%w: target has %d dimensions, at most %d", ErrInvalid, len(t.Target), MaxTargetDim)
	case len(t.Lease.Host) > MaxURLLength:
		return fmt.Errorf("%w: lease host longer than %d bytes", ErrInvalid, MaxURLLength)
	case len(t.Policy.UserAgent) > MaxPolicyLen || len(t.Policy.Token) > MaxPolicyLen || len(t.Policy.SignatureAgent) > MaxPolicyLen:
		return fmt.Errorf("%w: policy string longer than %d bytes", ErrInvalid, MaxPolicyLen)
	}
	switch {
	case len(t.KnownPages) > MaxKnownList || len(t.KnownInterSite) > MaxKnownList:
		return fmt.Errorf("%w: digest list longer than %d", ErrInvalid, MaxKnownList)
	case len(t.Validators) > MaxValidators:
		return fmt.Errorf("%w: %d validators exceeds %d", ErrInvalid, len(t.Validators), MaxValidators)
	}
	for _, f := range []*Filter{t.KnownFilter, t.Skip} {
		if f != nil {
			if err := f.Validate(); err != nil {
				return err
			}
		}
	}
	if t.Resume != nil {
		if err := t.Resume.Validate(""); err != nil {
			return err
		}
	}
	for _, x := range t.Target {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: target is not a finite point", ErrInvalid)
		}
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
		if v.Depth < 0 || v.Depth > MaxDepthLimit {
			return fmt.Errorf("%w: validator depth %d outside 0..%d", ErrInvalid, v.Depth, MaxDepthLimit)
		}
	}
	return nil
}

// Host returns the lower-cased host[:port] the task crawls, from its first
// seed (all seeds share one host), or "" when that does not parse.
func (t *Task) Host() string {
	if t.Lease.Host != "" {
		return t.Lease.Host
	}
	if len(t.Seeds) == 0 {
		return ""
	}
	u, err := url.Parse(t.Seeds[0])
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}
