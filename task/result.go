package task

import "time"

// Page is the result of fetching one page of a task. Unchanged pages carry
// no text: their content digest was known or the server answered 304.
type Page struct {
	URL       string    `json:"url"`
	FinalURL  string    `json:"final_url,omitempty"`
	Status    int       `json:"status"`
	FetchedAt time.Time `json:"fetched_at"`
	Depth     int       `json:"depth"`
	// Parent is the digest (DigestString) of the URL of the page whose
	// link led here; 0 for seeds and pages the task listed. The manager
	// keeps it as the link tree the selective recrawl rule walks.
	Parent       Digest `json:"parent,omitempty"`
	Digest       Digest `json:"digest,omitempty"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Title        string `json:"title,omitempty"`
	// Text is the extracted main text, compressed as named by Compression.
	Text []byte `json:"text,omitempty"`
	// Compression names Text's encoding: "zstd+text-1" (zstd with the
	// dictionary of that name), "zstd" (without one), or "" for none; see
	// crawler/textcodec.
	Compression string `json:"compression,omitempty"`
	// TextBytes is the length of the uncompressed text.
	TextBytes int  `json:"text_bytes,omitempty"`
	OutLinks  int  `json:"out_links"`
	Unchanged bool `json:"unchanged,omitempty"`
	// DuplicateOf is set on a page whose <link rel=canonical> names a URL
	// under which the task already recorded a page: the page carries no
	// text and is not stored. (A page whose canonical URL was not yet
	// recorded is recorded under it: URL is the canonical URL and FinalURL
	// the one fetched.)
	DuplicateOf string `json:"duplicate_of,omitempty"`
	// NoIndex is set when the page asked not to be indexed; such a page
	// carries no text.
	NoIndex bool `json:"noindex,omitempty"`
	// Refused names what refused the task's purpose for this page (its
	// Content-Signal or Content-Usage header, robots.txt's rule, "HTTP
	// 402"); such a page carries no text.
	Refused string `json:"refused,omitempty"`
	// Signals are the content signals that applied to the page, as
	// "category=y" or "=n" in the site's own words ("ai-train=n,
	// search=y"), at most MaxSignalsLen bytes; the storage module keeps
	// them beside the text.
	Signals string `json:"signals,omitempty"`
	// Error names the kind of failure for a page that could not be fetched.
	Error string `json:"error,omitempty"`
	// Raw is the HTTP response body (its Content-Encoding undone), kept
	// only when the task asked for it (Task.Raw) and the page's text is
	// uploaded, compressed as RawCompression names (as Text is, see
	// Compression); RawBytes is its uncompressed length. At most
	// MaxRawBytes compressed: a longer body is left out.
	Raw            []byte `json:"raw,omitempty"`
	RawCompression string `json:"raw_compression,omitempty"`
	RawBytes       int    `json:"raw_bytes,omitempty"`
	// Header are the response's HTTP header fields (canonical names) that
	// go with Raw, without those the body as kept no longer matches
	// (Content-Encoding, Content-Length, Transfer-Encoding) and hop-by-hop
	// ones; at most MaxHeaderBytes in all.
	Header map[string][]string `json:"header,omitempty"`
}

// DropRaw leaves out the page's raw response (Raw and its header), as
// an upload does for pages past its budget: the text still goes.
func (p *Page) DropRaw() {
	p.Raw, p.RawCompression, p.RawBytes, p.Header = nil, "", 0, nil
}

// MaxSignalsLen bounds Page.Signals.
const MaxSignalsLen = 256

// Limits of a page's raw response (Page.Raw, Page.Header).
const (
	// MaxRawBytes bounds Page.Raw, compressed: the page must travel in one
	// upload message.
	MaxRawBytes = 4 << 20
	// MaxHeaderBytes bounds Page.Header: names, values and a separator of
	// each.
	MaxHeaderBytes = 64 << 10
)

// HeaderSize returns the bytes Page.Header h counts against
// MaxHeaderBytes: each field's name and value and 4 more ("Name: value"
// and CRLF), a name without values as one empty field.
func HeaderSize(h map[string][]string) int {
	n := 0
	for k, vs := range h {
		n += len(k) + 4
		for i, v := range vs {
			if i > 0 {
				n += len(k) + 4
			}
			n += len(v)
		}
	}
	return n
}

// Stats are a task's totals.
type Stats struct {
	PagesFetched   int            `json:"pages_fetched"`
	PagesUnchanged int            `json:"pages_unchanged"`
	PagesNew       int            `json:"pages_new"`
	PagesChanged   int            `json:"pages_changed"`
	BytesDown      int64          `json:"bytes_down"`
	Errors         map[string]int `json:"errors,omitempty"`
	Started        time.Time      `json:"started"`
	Duration       Duration       `json:"duration"`
	// RTT, Transfer and Wait split the time spent per page into request
	// round trip, body transfer and politeness wait (design.md §3).
	RTT      Duration `json:"rtt"`
	Transfer Duration `json:"transfer"`
	Wait     Duration `json:"wait"`
	// Dirs counts fetched pages per first-level directory ("/news/"), which
	// the manager uses to split large hosts into pieces.
	Dirs map[string]int `json:"dirs,omitempty"`
	// PagesSkipped counts known pages not requested because their sitemap
	// <lastmod> is not after their Last-Modified; each is in the pages as
	// Unchanged, and none is in PagesFetched or PagesUnchanged.
	PagesSkipped int `json:"pages_skipped,omitempty"`
	// Sitemaps counts the sitemap files requested: not pages, so neither
	// in PagesFetched nor held to the page limit.
	Sitemaps int `json:"sitemaps,omitempty"`
	// PagesDuplicate counts the fetched pages recorded as duplicates of
	// their canonical URL (Page.DuplicateOf); PagesFetched includes them.
	PagesDuplicate int `json:"pages_duplicate,omitempty"`
}

// AddError counts one error of the given kind.
func (s *Stats) AddError(kind string) {
	if s.Errors == nil {
		s.Errors = make(map[string]int)
	}
	s.Errors[kind]++
}

// Result is what a task produced, apart from the pages, which stream to a
// spool file as they are done.
type Result struct {
	TaskID  string `json:"task_id"`
	Channel string `json:"channel"`
	Stats   Stats  `json:"stats"`
	// InterSite are newly found URLs on other hosts (firewall mode: they are
	// reported, not followed).
	InterSite []string `json:"inter_site,omitempty"`
	// Stopped says why the crawl ended early, if it did ("max pages",
	// "too many consecutive failures", "robots.txt unavailable",
	// "unreachable: DNS lookup failed for example.org: no such host", ...).
	Stopped string `json:"stopped,omitempty"`
	// Rest, with Stopped = StoppedHandedOff, is what the crawl left undone.
	Rest *Rest `json:"rest,omitempty"`
	// HostWait is the politeness wait the task's host asked for itself
	// (robots.txt Crawl-delay), and HostRest when it asked to be left
	// alone until (Retry-After). The manager keeps both between this crawl
	// and the next crawler's, as a crawler keeps them between its runs.
	HostWait Duration  `json:"host_wait,omitempty"`
	HostRest time.Time `json:"host_rest,omitzero"`
	// HostAddrs are the IP addresses the crawler connected to the task's
	// host at: the manager counts the host's leases against them (its
	// limits per address, docs/developer/leases.md).
	HostAddrs []string `json:"host_addrs,omitempty"`
	// Strike names what stopped the crawl to spare its host, "" when
	// nothing did: the manager rests the host, longer at each strike in a
	// row (docs/developer/leases.md, "Back-off").
	Strike string `json:"strike,omitempty"`
	// Refused, when the site's content signals refuse the task's purpose
	// for the whole host (robots.txt), names the rule ("robots.txt
	// Content-Signal: search=no"); the crawl stopped before any page, and
	// the manager leaves the host alone for RefusalRest. It is no strike.
	Refused string `json:"refused,omitempty"`
}

// RefusalRest is how long a host whose robots.txt refuses a crawl's
// purpose is left alone: the longest a robots.txt may be kept (RFC 9309
// §2.4), so the host is asked again once its answer may have changed.
const RefusalRest = 24 * time.Hour

// Strikes (Result.Strike).
const (
	// StrikeSlowDown: a 429 or 503 without Retry-After.
	StrikeSlowDown = "slow down"
	// StrikeErrors: a run of server errors or timeouts.
	StrikeErrors = "errors"
	// StrikeChallenge: a challenge or block page (a WAF's), or a run of
	// 401 and 403 answers.
	StrikeChallenge = "challenge"
)
