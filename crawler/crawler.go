// Package crawler runs one crawl task: robots.txt first, then one persistent
// connection to the host, one request at a time with a politeness wait,
// streaming each page's extracted text to a sink.
//
// One connection means at most one at a time: a run never has two
// connections to a host open, nor two requests in flight, and it keeps
// its connection from one request to the next (its idle timeout outlasts
// a contributor's wait and a site's Crawl-delay; bodies it does not want
// are read to their end when short). It opens another only after
// the last one closed: the site closed it or timed out, a request
// failed, an unwanted body was too long to read, or Go's transport did
// not reuse it (it drops a connection when it cannot confirm, within
// 50 ms of reading an answer, that the request was written: a busy
// machine does that now and then). The tests check exactly this:
// requests one at a time, connections one after another, most requests
// on a connection already open (checkOneConnection here,
// fixture.Stats.MaxConns for the whole program).
//
// A task thread (paper 000 §2.2) is built from a downloader (fetch.go), a
// robots filter (robots.go), the URLtodo FIFO that spills to a temporary file
// past 1000 entries (frontier.go), the URLseen set of URL hashes (seen.go)
// and Pageseen, the task's known content digests (crawl.go): a list, or a
// Bloom filter for large channels, whose rare false positive makes a
// changed page count as unchanged for one round (task.Filter).
//
// Content digests are task.DigestOf over the page's raw (decompressed) body,
// not its extracted text: that is what lets an unchanged page skip text
// extraction entirely. The manager must compare digests that the crawler
// produced; they are not comparable with digests of extracted text.
//
// One page is one URL: every URL is canonical (urls.Canonical drops
// tracking and session parameters too), and a page naming another URL of
// the channel as its <link rel=canonical> is recorded under it, or as its
// duplicate when the task already recorded that URL (canonical.go,
// docs/developer/urls.md).
//
// A recrawl task lists the known pages it revisits (task.Validators):
// each is queued at its depth and asked for with a conditional GET when it
// has an ETag or Last-Modified. A 304 has no body, so its links are not
// followed; the pages below it are in the list themselves, or in the
// task's Skip filter of known pages this crawl leaves alone (the manager's
// page plan decides which). Pages fetched in full are recognised as
// unchanged by their digest (Pageseen), without text extraction or
// upload.
//
// Politeness is the operator's (design.md §8): a task's policy names the
// crawler (User-Agent, robots.txt product token) and sets the least wait
// between requests; the Config can only make a run slower and shorter
// (see Config). The wait holds per host across all runs of one Crawler, so
// two tasks of a host crawled back to back keep it too; crawlers in other
// processes are kept apart by the host's lease, not here.
//
// The crawler never dials a non-public address (checked at dial time, after
// DNS, on every redirect); Config.AllowLoopback exists only for test
// fixtures.
//
// Sitemaps (sitemap.go, parsed by crawler/sitemap) are read when robots.txt
// names them, never guessed at /sitemap.xml, and only by a task that
// follows links (MaxDepth ≥ 1): the sitemaps on the channel's hosts that
// robots.txt allows, an index's children one level deep, at most
// MaxSitemaps requests and MaxSitemapURLs listed pages a task, each file
// within Config.MaxBodyBytes on the wire and again decompressed. They go
// through the same request path as pages (politeness wait, gate, address
// check) but are not pages: Stats.Sitemaps counts them, the page limit
// does not. Listed pages the task does not know are links at depth 1,
// pass the same filters, and are queued when the sitemap is read: after
// the seeds and the known pages the task revisits, before links found on
// pages. A known page the task revisits whose <lastmod> is not after its
// validator's Last-Modified is reported Unchanged without a request
// (Stats.PagesSkipped). A sitemap that fails is counted in Stats.Errors
// ("sitemap_" and the kind) and the crawl goes on.
package crawler

import (
	"context"
	"crypto/x509"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// Limiter meters bytes read from the network. The client's governor supplies
// a shared token bucket; nil means unlimited. The crawler calls WaitN after
// each read with n at most ReadChunk.
type Limiter interface {
	WaitN(ctx context.Context, n int) error
}

// ReadChunk is the largest n the crawler passes to Limiter.WaitN, so a token
// bucket with at least this burst never refuses a wait.
const ReadChunk = 16 << 10

// Gate is consulted before every request; it blocks while the client is
// paused or throttled (CPU cap, schedule, snooze) and returns an error when
// ctx ends. nil means never blocked.
type Gate interface {
	Wait(ctx context.Context) error
}

// Admitter admits work against a shared memory budget: Admit blocks until
// n bytes fit beside the work already admitted (work larger than the whole
// budget runs alone) and returns the function that gives them back. The
// client's governor supplies one sized from the contributor's memory cap,
// so parses on all threads together stay under it.
type Admitter interface {
	Admit(ctx context.Context, n int64) (release func(), err error)
}

// DialFunc is the shape of net.Dialer.DialContext.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// ParseCost estimates the memory parsing a body of n bytes takes: the body
// decoded, the parse (bounded by extract.MaxTreeTokens, at most about 70 MB)
// and the text.
func ParseCost(n int) int64 { return min(int64(n)*8, 80<<20) + 2<<20 }

// Sink receives pages as they are done, so a large channel never sits in
// memory. A Spool is a Sink.
type Sink interface {
	Page(p *task.Page) error
}

// Defaults for zero Config fields (DefaultUserAgent is in useragent.go).
const (
	DefaultDelay        = time.Second
	DefaultMaxPages     = 10000
	DefaultPageTimeout  = 30 * time.Second
	DefaultMaxBodyBytes = 10 << 20
	DefaultMaxRedirects = 5
	DefaultMaxFailures  = 10
	// MaxCrawlDelay is the longest wait a task keeps between two of its
	// requests (robots.txt Crawl-delay). A host asking for longer gets
	// one page a task, and the manager spaces its tasks by the whole
	// Crawl-delay, up to MaxAskedDelay (docs/developer/leases.md, "Long
	// Crawl-delays").
	MaxCrawlDelay = 5 * time.Minute
	// MaxAskedDelay caps the Crawl-delay read from robots.txt.
	MaxAskedDelay = 24 * time.Hour
)

// Config is the crawler's configuration. Zero values take the defaults noted.
//
// A task's politeness policy is the operator's (design.md §8): its
// Policy.UserAgent and Policy.Token replace UserAgent and the token derived
// from it, and its Delay and MaxPages are combined with this
// configuration's so that a volunteer can only crawl slower and less, never
// faster, more or under another name.
type Config struct {
	// UserAgent is the User-Agent header sent when the task's policy names
	// none, and its product token (the letters, "-" and "_" it starts
	// with) the name robots.txt rules are matched against. Default
	// DefaultUserAgent; programs use UserAgent(version, ContactURL).
	UserAgent string
	// Delay is the crawler's own minimum politeness wait between requests:
	// a run waits the longer of it and the task's Delay, and robots.txt
	// Crawl-delay can raise that (MaxCrawlDelay). 0 = none of its own:
	// the task's wait, or DefaultDelay when the task sets none either.
	Delay time.Duration
	// MaxCrawlDelay is the longest wait a task keeps between requests; a
	// longer Crawl-delay gets one page a task, paced by the manager.
	// 0 = MaxCrawlDelay (tests shorten it).
	MaxCrawlDelay time.Duration
	// MaxPages caps the pages of one task: a run fetches at most the
	// smaller of it and the task's MaxPages. 0 = the task's, or
	// DefaultMaxPages when the task sets none either.
	MaxPages      int
	PageTimeout   time.Duration // whole request incl. body; default 30s
	MaxBodyBytes  int64         // decompressed; default 10 MiB
	MaxRedirects  int           // default 5
	MaxFailures   int           // consecutive failures before giving up; default 10
	AllowLoopback bool          // test-only: allow loopback addresses (fixtures)
	AllowTestNets bool          // test-only: allow the documentation ranges (netlab fixtures)
	// SourceIP, when set, is the local address crawl connections are made
	// from (the demo gives each client its own loopback address, so the
	// fixture web can tell them apart). Empty = the system's choice.
	SourceIP string
	SkipText bool // skip main-text extraction (benchmarks)
	// RootCAs, when set, are the certificate authorities HTTPS servers
	// are checked against instead of the system's (tests' own servers).
	RootCAs *x509.CertPool
	Limiter Limiter
	Gate    Gate
	// WrapDial, when set, wraps the dial of every crawl connection: the
	// contributor's connection cap (app/governor.Conns.Dial), under which
	// a connection holds a slot from its dial until it closes. A run
	// holds at most one connection at a time (it closes one scheme's
	// before it opens the other's): with no more runs than slots, none
	// waits on another.
	WrapDial func(DialFunc) DialFunc
	// Admit, when set, admits each page's parse against the client's
	// memory budget (ParseCost of its body). nil = parses are not held.
	Admit   Admitter
	TempDir string // URLtodo spill files; default os.TempDir()
	Logger  *slog.Logger
	// NoDelay makes a run with a zero Delay and a task without one wait
	// not at all instead of DefaultDelay (benchmarks and tests only;
	// robots Crawl-delay still applies).
	NoDelay bool
	// Sign, when set, is called on every request to a site (robots.txt,
	// pages, each redirect hop) just before it is sent, to add its Web Bot
	// Auth signature (botauth.Signer.Sign). An error fails that request.
	// nil sends requests unsigned.
	Sign func(*http.Request) error
}

// withDefaults returns cfg with zero fields set to their defaults.
func (cfg Config) withDefaults() Config {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Delay < 0 {
		cfg.Delay = 0
	}
	if cfg.MaxPages < 0 {
		cfg.MaxPages = 0
	}
	if cfg.PageTimeout <= 0 {
		cfg.PageTimeout = DefaultPageTimeout
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = DefaultMaxFailures
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// Crawler runs tasks. It is safe for concurrent use; each Run uses its own
// connection.
type Crawler struct {
	cfg Config
	// hosts spaces requests to one host across runs.
	hosts *hostClock
	// now is the clock robots.txt copies are dated and aged by
	// (RobotsTTL); time.Now but in tests.
	now func() time.Time
}

// New returns a Crawler with cfg's defaults filled in.
func New(cfg Config) *Crawler {
	return &Crawler{
		cfg:   cfg.withDefaults(),
		hosts: newHostClock(),
		now:   time.Now,
	}
}
