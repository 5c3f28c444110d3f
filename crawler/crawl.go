package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// errStop ends a run early; the reason is in Result.Stopped.
var errStop = errors.New("stop crawl")

// run is the state of one task thread. It is owned by the goroutine that
// called Run.
type run struct {
	c    *Crawler
	cfg  *Config // the crawler's, with the run's User-Agent
	t    *task.Task
	sink Sink
	log  *slog.Logger
	f    *fetcher
	res  *task.Result

	todo       *frontier
	seen       seenSet // URLseen
	interSeen  seenSet
	recorded   seenSet // URLs pages were recorded under; made by markRecorded
	seeds      map[string]bool
	hosts      map[string]bool // hosts of the channel (seed hosts, and where seeds redirect without a lease)
	robots     map[string]*robots
	filter     urls.Filter
	known      task.DigestSet // Pageseen, listed
	knownBloom *task.Filter   // Pageseen, filtered; nil when the task lists it
	knownInter task.DigestSet
	validators map[string]task.Validator
	skip       *task.Filter // known pages this crawl leaves alone; nil = none

	token    string // product token robots.txt rules are matched against
	purpose  string // what the crawl is for, read against content signals
	maxPages int
	requests int           // page URLs requested (max pages counts these)
	delay    time.Duration // politeness wait; robots.txt Crawl-delay raises it
	nextWait time.Duration // extra wait before the next request (Retry-After)
	slow     time.Duration // the wait the host's last response time asks for (DelayFactor)
	// paced is a Crawl-delay longer than MaxCrawlDelay: the run fetches
	// one page, and the result asks the manager to space tasks by it.
	paced   time.Duration
	lastReq time.Time
	// schemes is the scheme of the last request to each host: the
	// transport keeps a connection per scheme, so a switch closes the idle
	// one first (one connection per host, http and https alike).
	schemes  map[string]string
	failures int // consecutive
	blocks   int // consecutive 401, 403, 429 and 503 answers (BlockRun)
	sitemaps sitemapState
	addrs    []string // the addresses the channel's hosts answered from (Result.HostAddrs)

	checkpoint func(*Progress) error // nil = none
	every      int                   // requests between checkpoints
	interval   time.Duration         // longest time between checkpoints
	sinceCP    int                   // requests since the last checkpoint
	lastCP     time.Time             // the last checkpoint, or the run's start
}

// Run crawls t, sending every page to sink, and returns the task's totals.
// It returns an error only when the task could not run at all (ctx ended,
// bad seeds, sink failure); per-page failures are counted in the result.
// When ctx ends mid-crawl the partial result is returned with the error.
func (c *Crawler) Run(ctx context.Context, t *task.Task, sink Sink) (*task.Result, error) {
	return c.run(ctx, t, sink, RunOptions{})
}

func (c *Crawler) run(ctx context.Context, t *task.Task, sink Sink, opts RunOptions) (*task.Result, error) {
	if t == nil || sink == nil {
		return nil, errors.New("crawler: run needs a task and a sink")
	}
	r, err := c.newRun(t, sink)
	if err != nil {
		return nil, err
	}
	defer r.close()
	switch {
	case opts.Resume != nil:
		if err := r.resume(opts.Resume); err != nil {
			return nil, err
		}
	case t.Resume != nil:
		if err := r.continueFrom(t.Resume); err != nil {
			return nil, err
		}
	}
	r.checkpoint, r.every, r.interval = opts.Checkpoint, opts.Every, opts.Interval
	if r.every <= 0 {
		r.every = DefaultCheckpointEvery
	}
	if r.interval <= 0 {
		r.interval = DefaultCheckpointInterval
	}
	start, before := time.Now(), time.Duration(r.res.Stats.Duration)
	r.lastCP = start
	if r.res.Stats.Started.IsZero() {
		r.res.Stats.Started = start
	}
	if d := r.hostRest(); d > MaxRetryAfter {
		// The host asked an earlier run to come back later than a run
		// waits: this one sends it nothing.
		r.res.Stopped = fmt.Sprintf("server asked to retry after %v", d.Round(time.Second))
		err = errStop
	} else {
		err = r.crawl(ctx)
	}
	r.res.Stats.Duration = task.Duration(before + time.Since(start))
	r.hostAsks(r.res)
	if errors.Is(err, errStop) {
		err = nil
	}
	if err != nil {
		return r.res, fmt.Errorf("crawl task %s: %w", t.ID, err)
	}
	r.log.Debug("Task done", "task", t.ID, "pages", r.res.Stats.PagesFetched, "stopped", r.res.Stopped)
	return r.res, nil
}

// hostAsks sets on res what the channel's hosts asked of the run (the
// longest wait between requests, a rest) and the addresses they answered
// from: the manager keeps them at the host's lease for whoever crawls it
// next, so a result cut short at a checkpoint carries them too.
func (r *run) hostAsks(res *task.Result) {
	res.HostAddrs = slices.Clone(r.addrs)
	res.HostWait = max(res.HostWait, task.Duration(r.slow), task.Duration(r.paced))
	for h := range r.hosts {
		wait, rest := r.c.hosts.asks(h)
		res.HostWait = max(res.HostWait, task.Duration(wait))
		if rest.After(res.HostRest) {
			res.HostRest = rest.UTC()
		}
	}
}

func (c *Crawler) newRun(t *task.Task, sink Sink) (*run, error) {
	pol, err := policyFor(&c.cfg, t)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	cfg := new(Config)
	*cfg = c.cfg
	cfg.UserAgent = pol.userAgent
	filter, err := urls.Regexes(t.Filters)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	r := &run{
		c: c, cfg: cfg, t: t, sink: sink,
		log:        cfg.Logger.With("task", t.ID),
		res:        &task.Result{TaskID: t.ID, Channel: t.Channel},
		todo:       newFrontier(cfg.TempDir, memEntries),
		seen:       newSeenSet(t.ExpectedPages),
		interSeen:  newSeenSet(0),
		seeds:      make(map[string]bool),
		hosts:      make(map[string]bool),
		robots:     make(map[string]*robots),
		filter:     filter,
		known:      task.NewDigestSet(t.KnownPages),
		knownBloom: t.KnownFilter,
		knownInter: task.NewDigestSet(t.KnownInterSite),
		validators: make(map[string]task.Validator, len(t.Validators)),
		skip:       t.Skip,
		token:      pol.token,
		purpose:    t.PurposeOf(),
		maxPages:   pol.maxPages,
		delay:      pol.delay,
	}
	var bad []string
	for _, s := range t.Seeds {
		u, err := urls.Canonical(s, nil)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		key := u.String()
		r.hosts[u.Host] = true
		if !r.seen.Add(key) {
			continue
		}
		r.seeds[key] = true
		if err := r.todo.Push(entry{URL: key}); err != nil {
			r.close()
			return nil, err
		}
	}
	if len(r.seeds) == 0 {
		r.close()
		return nil, fmt.Errorf("task %s: no usable seed URL: %s", t.ID, strings.Join(bad, "; "))
	}
	if err := r.queueKnown(); err != nil {
		r.close()
		return nil, err
	}
	r.f = newFetcher(cfg)
	return r, nil
}

func (r *run) close() {
	if r.f != nil {
		r.f.close()
	}
	if err := r.todo.Close(); err != nil {
		r.log.Warn("Could not remove URLtodo spill file", "err", err)
	}
}

// crawl is the task thread's loop: pop a URL, fetch it, process it.
func (r *run) crawl(ctx context.Context) error {
	outlook := frontierOf(ctx)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if outlook != nil {
			outlook.set(r.requests, r.todo.Len(), max(r.maxPages-r.requests, 0))
		}
		if r.requests >= r.maxPages {
			if r.todo.Len() > 0 {
				r.res.Stopped = "max pages"
			}
			return nil
		}
		if r.paced > 0 && r.requests >= 1 {
			if r.todo.Len() > 0 {
				r.res.Stopped = fmt.Sprintf("Crawl-delay of %v: one page a task, paced by the manager", r.paced)
			}
			return nil
		}
		e, ok, err := r.todo.Pop()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		u, err := url.Parse(e.URL)
		if err != nil {
			continue // canonical URLs always parse; nothing to fetch otherwise
		}
		before := r.requests
		if err := r.visit(ctx, u, e.Depth, e.Parent); err != nil {
			return err
		}
		if r.sinceCP += r.requests - before; r.checkpointDue() {
			p, err := r.progress()
			if err != nil {
				return err
			}
			if err := r.checkpoint(p); err != nil {
				return fmt.Errorf("checkpoint: %w", err)
			}
			r.sinceCP, r.lastCP = 0, time.Now()
		}
		if r.failures >= r.cfg.MaxFailures {
			r.res.Strike = task.StrikeErrors
			r.res.Stopped = fmt.Sprintf("too many consecutive failures (%d)", r.failures)
			return nil
		}
	}
}

// checkpointDue reports whether the run takes a checkpoint now: Every
// requests since the last, or Interval since it with a request made.
func (r *run) checkpointDue() bool {
	return r.checkpoint != nil && r.sinceCP > 0 && (r.sinceCP >= r.every || time.Since(r.lastCP) >= r.interval)
}

// hostRest returns how much longer the channel's hosts asked the crawler
// to leave them alone (Retry-After, any run's).
func (r *run) hostRest() time.Duration {
	var d time.Duration
	for h := range r.hosts {
		if _, rest := r.c.hosts.asks(h); !rest.IsZero() {
			d = max(d, time.Until(rest))
		}
	}
	return d
}
