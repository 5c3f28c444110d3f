package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// maxSegmentRepeats rejects URLs whose path repeats a segment more often
// (paper 003 §4 traps: /a/b/a/b/a/b/a/b).
const maxSegmentRepeats = 3

// maxInterSite bounds the inter-site URLs one task reports.
const maxInterSite = 100000

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

// robotsFor returns the robots.txt policy for u's host, fetching it first
// when the host is new (RFC 9309: redirects followed, up to five), or
// again when the copy the run has is RobotsTTL old: a long crawl (16 h
// for 10,000 pages at 1 s, days under a long Crawl-delay) would
// otherwise keep a file the site has changed since, RFC 9309 §2.4's
// 24 hours and more.
func (r *run) robotsFor(ctx context.Context, u *url.URL) (*robots, error) {
	key := u.Scheme + "://" + u.Host
	old, ok := r.robots[key]
	if ok && !old.stale(r.c.now()) {
		return old, nil
	}
	agent := r.token
	cur := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	status := 0
	var (
		body        []byte
		unreachable error // the host's own, not a redirect target's
	)
	for hop := 0; hop <= 5; hop++ {
		resp, err := r.request(ctx, request{URL: cur, AnyType: true, MaxBody: maxRobotsBytes})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, ErrForbiddenAddress) {
			if hop == 0 { // the host itself may not be contacted
				rb := &robots{mode: robotsDisallowAll, agent: agent, err: err}
				r.robots[key] = rb
				return rb, nil
			}
			status = http.StatusNotFound // redirected somewhere forbidden: no usable robots.txt
			break
		}
		if err != nil && !errors.Is(err, ErrBodyTooLarge) {
			r.log.Debug("Robots.txt unreachable", "url", cur.String(), "err", err)
			status = 0
			if hop == 0 {
				unreachable = err
			}
			break
		}
		status, body = resp.Status, resp.Body
		loc := resp.Header.Get("Location")
		if !isRedirect(status) || loc == "" {
			break
		}
		next, err := urls.Canonical(loc, cur)
		if err != nil {
			status = http.StatusNotFound // an unusable redirect: no robots.txt
			break
		}
		cur = next
		status = http.StatusNotFound // more than five redirects: unavailable
	}
	rb := robotsForStatus(status, body, agent)
	rb.unreachable, rb.fetched = unreachable, r.c.now()
	rb.kept = keptRobots(key, status, body, rb, rb.fetched)
	if old != nil {
		// The run read the sitemaps the old copy named: not again.
		rb.sitemapsRead = old.sitemapsRead
		r.log.Debug("Robots.txt asked again: the copy was a day old", "origin", key)
	}
	r.adoptRobots(key, u, rb)
	return rb, nil
}

// adoptRobots makes rb the run's policy for key, u's origin, fetched now
// or kept by the checkpoint the run resumed from: its Crawl-delay raises
// the run's wait, or paces the host's tasks when longer than a run waits.
func (r *run) adoptRobots(key string, u *url.URL, rb *robots) {
	r.robots[key] = rb
	longest := cmp.Or(r.cfg.MaxCrawlDelay, MaxCrawlDelay)
	wait := min(rb.crawlDelay, longest)
	r.c.hosts.asked(u.Host, wait) // for later runs too, from their robots.txt on
	if wait > r.delay {
		r.log.Debug("Crawl-delay raises the politeness wait", "host", u.Host, "delay", rb.crawlDelay)
		r.delay = wait
	}
	if rb.crawlDelay > longest && r.sameSite(u) {
		// Longer than a task waits: one page this task, and the manager
		// spaces the host's tasks by the whole of it.
		r.paced = max(r.paced, rb.crawlDelay)
	}
}

// request waits for the gate and the politeness delay, then fetches. The
// delay runs from the end of the run's previous request, whatever its host
// (robots.txt, a redirect hop, a retry), and from the end of the previous
// request to the same host by another run of the crawler.
func (r *run) request(ctx context.Context, req request) (*response, error) {
	if r.cfg.Gate != nil {
		if err := r.cfg.Gate.Wait(ctx); err != nil {
			return nil, fmt.Errorf("wait for gate: %w", err)
		}
	}
	gap := max(r.delay, r.nextWait, r.slow)
	r.nextWait = 0
	if !r.lastReq.IsZero() {
		if wait := gap - time.Since(r.lastReq); wait > 0 {
			if err := sleep(ctx, wait); err != nil {
				return nil, err
			}
			r.res.Stats.Wait += task.Duration(wait)
		}
	}
	release, waited, err := r.c.hosts.acquire(ctx, req.URL.Host, gap)
	r.res.Stats.Wait += task.Duration(waited)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		// Ended while waiting (a lease revoked, a shutdown): not one
		// request more, whatever the waits above noticed.
		release()
		return nil, err
	}
	if prev, ok := r.schemes[req.URL.Host]; ok && prev != req.URL.Scheme {
		r.f.close()
	}
	if r.schemes == nil {
		r.schemes = make(map[string]string)
	}
	r.schemes[req.URL.Host] = req.URL.Scheme
	resp, err := r.f.fetch(ctx, req)
	release()
	r.lastReq = time.Now()
	if resp != nil {
		r.noteAddr(req.URL.Host, resp.Addr)
		if r.hosts[req.URL.Host] {
			r.slow = slowWait(resp.RTT)
		}
		r.res.Stats.BytesDown += resp.WireBytes
		r.res.Stats.RTT += task.Duration(resp.RTT)
		r.res.Stats.Transfer += task.Duration(resp.Transfer)
	}
	return resp, err
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// sameSite reports whether u is on one of the channel's hosts.
func (r *run) sameSite(u *url.URL) bool { return r.hosts[u.Host] }

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

// adopts reports whether a seed redirected to another host makes that host
// the channel's too. A task under a lease (a network's) keeps to its
// leased host: another host has a lease of its own, and crawling it here
// could put a second crawler on it beside its own. The redirect target is
// then reported as an inter-site URL, so the manager can give it a channel.
func (r *run) adopts() bool { return r.t.Lease.Host == "" }

// addInterSite records a URL on another host unless the task already knows
// it (firewall mode: reported, not followed).
func (r *run) addInterSite(u *url.URL) {
	s := u.String()
	if r.knownInter.Has(task.DigestString(s)) || len(r.res.InterSite) >= maxInterSite {
		return
	}
	if r.interSeen.Add(s) {
		r.res.InterSite = append(r.res.InterSite, s)
	}
}

// queueKnown takes the known pages the task revisits (its validators)
// under their canonical URLs and queues them after the seeds, each at its
// own depth: a page that answers 304 has no body to take links from, so
// the pages it links to come from this list rather than from it. Seeds
// are not queued twice, and pages off the channel's hosts, out of the
// filters or deeper than the task's MaxDepth not at all; robots.txt
// applies when they are visited.
func (r *run) queueKnown() error {
	for _, v := range r.t.Validators {
		u, err := urls.Canonical(v.URL, nil)
		if err != nil {
			continue
		}
		v.URL = u.String()
		r.validators[v.URL] = v
		if v.Depth > r.t.MaxDepth || !r.sameSite(u) || !r.filter.Match(u) || !r.seen.Add(v.URL) {
			continue
		}
		if err := r.todo.Push(entry{URL: v.URL, Depth: v.Depth}); err != nil {
			return err
		}
	}
	return nil
}

// discover queues a link found at the given depth, on the page whose URL
// has digest parent, if the task may crawl it.
func (r *run) discover(u *url.URL, depth int, parent task.Digest) error {
	if !r.sameSite(u) {
		r.addInterSite(u)
		return nil
	}
	if depth > r.t.MaxDepth || urls.RepeatsSegment(u, maxSegmentRepeats) || !r.filter.Match(u) {
		return nil
	}
	s := u.String()
	if len(s) > urls.MaxLength {
		return nil
	}
	if rb, ok := r.robots[u.Scheme+"://"+u.Host]; ok && (!rb.allowed(u) || rb.refusal(u, r.purpose) != "") {
		return nil
	}
	if r.skip != nil && r.skip.Has(task.DigestString(s)) {
		return nil // known, and not due in this crawl
	}
	if r.todo.Len() >= r.todoRoom() {
		return nil // more than the task can still fetch: found again later if needed
	}
	if !r.seen.Add(s) {
		return nil
	}
	return r.todo.Push(entry{URL: s, Depth: depth, Parent: parent})
}

// minTodoRoom is the URLtodo a run keeps room for however few pages its
// task may still fetch: entries that turn out not to be fetched (a
// redirect to a page already seen) leave others their turn.
const minTodoRoom = 1000

// todoRoom is how many URLs the URLtodo may hold: twice the pages the task
// may still fetch, at least minTodoRoom. A URL beyond it could not be
// fetched in this task anyway, and every checkpoint holds the whole
// URLtodo in memory: a host whose pages each link thousands of new URLs
// would otherwise grow it by megabytes a page.
func (r *run) todoRoom() int {
	return max(2*(r.maxPages-r.requests), minTodoRoom)
}
