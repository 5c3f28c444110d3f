// Package crawler runs one crawl task: robots.txt first, then one persistent
// connection to the host, one request at a time with a politeness wait,
// streaming each page's extracted text to a sink.
//
// PLACEHOLDER API: signatures are fixed; the implementation is being written.
package crawler

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// Limiter meters bytes read from the network. The client's governor supplies
// a shared token bucket; nil means unlimited.
type Limiter interface {
	WaitN(ctx context.Context, n int) error
}

// Gate is consulted before every request; it blocks while the client is
// paused or throttled (CPU cap, schedule, snooze) and returns an error when
// ctx ends. nil means never blocked.
type Gate interface {
	Wait(ctx context.Context) error
}

// Sink receives pages as they are done, so a large channel never sits in
// memory. A Spool is a Sink.
type Sink interface {
	Page(p *task.Page) error
}

// Config is the crawler's configuration. Zero values take the defaults noted.
type Config struct {
	UserAgent     string        // product token; default "hivecrawl"
	Delay         time.Duration // politeness wait; default 1s; task may set it; robots Crawl-delay raises it (cap 30s)
	MaxPages      int           // per task when the task sets none; default 10000
	PageTimeout   time.Duration // whole request incl. body; default 30s
	MaxBodyBytes  int64         // decompressed; default 10 MiB
	MaxRedirects  int           // default 5
	MaxFailures   int           // consecutive failures before giving up; default 10
	AllowLoopback bool          // test-only: allow loopback addresses (fixtures)
	SkipText      bool          // skip main-text extraction (benchmarks)
	Limiter       Limiter
	Gate          Gate
	TempDir       string // URLtodo spill files; default os.TempDir()
	Logger        *slog.Logger
}

// Crawler runs tasks. It is safe for concurrent use; each Run uses its own
// connection.
type Crawler struct {
	cfg Config
}

// New returns a Crawler with cfg's defaults filled in.
func New(cfg Config) *Crawler { return &Crawler{cfg: cfg} }

// Run crawls t, sending every page to sink, and returns the task's totals.
// It returns an error only when the task could not run at all (ctx ended,
// bad seeds, sink failure); per-page failures are counted in the result.
func (c *Crawler) Run(ctx context.Context, t *task.Task, sink Sink) (*task.Result, error) {
	return nil, errors.New("crawler: not implemented yet")
}
