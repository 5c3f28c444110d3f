package crawler

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// DefaultCheckpointEvery is how many pages a run crawls between two
// checkpoints when RunOptions.Every is zero: a crash or a stop costs at
// most this many requests again.
const DefaultCheckpointEvery = 5

// DefaultCheckpointInterval is the longest a run goes between two
// checkpoints, whatever its page count, when RunOptions.Interval is zero.
// It is below the public web's least wait between requests (a second), so
// there a crash costs at most the page being fetched; a fast run (a short
// operator's wait) checkpoints every DefaultCheckpointEvery pages, at most
// a few times a second.
const DefaultCheckpointInterval = 500 * time.Millisecond

// RobotsTTL is how long a robots.txt answer a checkpoint kept serves a
// resumed run without asking the host again (RFC 9309 §2.4: a cached
// copy should not be used for more than 24 hours).
const RobotsTTL = 24 * time.Hour

// maxKeptRobots is the largest robots.txt a checkpoint keeps; a larger
// one (rare: most are a few KiB) is asked again after a restart, so that
// checkpoints stay small.
const maxKeptRobots = 64 << 10

// Progress is a run's state between two pages: what is left (URLtodo),
// what was seen (URLseen), the totals so far and the hosts of the channel.
// A run resumed from it (RunOptions.Resume) goes on where it stood; the
// pages it had delivered to its sink stay the caller's to keep.
type Progress struct {
	// Rest is URLtodo, URLseen (8-byte big-endian hashes) and the
	// requests made: what a continuation task carries, and the same JSON.
	task.Rest
	Failures int          `json:"failures,omitempty"`
	Hosts    []string     `json:"hosts"`
	Result   *task.Result `json:"result"`
	// Wait is the run's politeness wait when it stood here, a host's
	// Crawl-delay included: a run resumed after a restart keeps it from
	// its first request, robots.txt's, on.
	Wait task.Duration `json:"wait,omitempty"`
	// Robots are the robots.txt answers the run had: a run resumed within
	// RobotsTTL of one does not ask its host again.
	Robots []RobotsCopy `json:"robots,omitempty"`
	// SitemapPages and NotModified are what the run took from the
	// sitemaps it read (sitemapState), so a resumed run neither reads them
	// again nor asks for the pages they showed unchanged.
	SitemapPages int      `json:"sitemap_pages,omitempty"`
	NotModified  []string `json:"not_modified,omitempty"`
}

// RobotsCopy is one host's robots.txt answer as a checkpoint keeps it.
type RobotsCopy struct {
	Origin  string    `json:"origin"` // scheme://host[:port]
	Status  int       `json:"status"`
	Body    []byte    `json:"body,omitempty"`
	Fetched time.Time `json:"fetched"`
	// SitemapsRead is set once the run read the sitemaps the file names.
	SitemapsRead bool `json:"sitemaps_read,omitempty"`
}

// Pending is one URL waiting in URLtodo.
type Pending = task.Pending

// RunOptions are the optional parts of a run.
type RunOptions struct {
	// Resume, when set, is where the run starts instead of the task's
	// seeds. It must come from a run of the same task.
	Resume *Progress
	// Checkpoint, when set, is called every Every pages with the run's
	// progress; the sink has received every page before it. An error ends
	// the run.
	Checkpoint func(*Progress) error
	// Every is the pages between checkpoints; 0 = DefaultCheckpointEvery.
	Every int
	// Interval is the longest time between checkpoints while pages are
	// fetched; 0 = DefaultCheckpointInterval.
	Interval time.Duration
}

// processingKey marks a run's context with the function that records that
// a fetched page is about to be processed (parsed, extracted).
type processingKey struct{}

// WithProcessingMark returns ctx carrying mark, which a run calls just
// before it processes each fetched page. The task manager passes
// Spool.Mark: a process that dies while it processes a page (a page that
// makes it run out of memory, say) leaves a mark as the spool's last
// record, which tells a crash caused by the page from a kill at a random
// moment.
func WithProcessingMark(ctx context.Context, mark func() error) context.Context {
	return context.WithValue(ctx, processingKey{}, mark)
}

func processingMark(ctx context.Context) func() error {
	mark, _ := ctx.Value(processingKey{}).(func() error)
	return mark
}

// Frontier is a running crawl's outlook, for progress displays: requests
// made, URLs found and not yet fetched, and requests left within the page
// limit, as of one moment. The crawl updates it before each request.
type Frontier struct {
	mu                        sync.Mutex
	requests, waiting, budget int
}

func (f *Frontier) set(requests, waiting, budget int) {
	f.mu.Lock()
	f.requests, f.waiting, f.budget = requests, waiting, budget
	f.mu.Unlock()
}

// Outlook returns the requests made, the URLs waiting and the requests the
// page limit leaves, all as of the same moment.
func (f *Frontier) Outlook() (requests, waiting, budget int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests, f.waiting, f.budget
}

type frontierKey struct{}

// WithFrontier asks the crawl run with ctx to keep f up to date.
func WithFrontier(ctx context.Context, f *Frontier) context.Context {
	return context.WithValue(ctx, frontierKey{}, f)
}

func frontierOf(ctx context.Context) *Frontier {
	f, _ := ctx.Value(frontierKey{}).(*Frontier)
	return f
}

// RunFrom is Run with options: resume from a checkpoint, and take new
// ones as the crawl goes.
func (c *Crawler) RunFrom(ctx context.Context, t *task.Task, sink Sink, opts RunOptions) (*task.Result, error) {
	return c.run(ctx, t, sink, opts)
}

// PassOn is what p leaves for another volunteer to crawl (task.Rest), or
// nil when it is too large for a continuation task.
func (p *Progress) PassOn() *task.Rest {
	if len(p.Todo) > task.MaxRestTodo || len(p.Seen)/8 > task.MaxRestSeen {
		return nil
	}
	rest := &task.Rest{Requests: p.Requests, Todo: slices.Clone(p.Todo), Seen: slices.Clone(p.Seen)}
	if b, err := json.Marshal(rest); err != nil || len(b) > task.MaxRestBytes {
		return nil
	}
	return rest
}

// load replaces the run's URLtodo, URLseen and request count with rest's;
// keep, when set, admits each URL to fetch and may rewrite it.
func (r *run) load(rest *task.Rest, keep func(*entry) bool) error {
	if err := r.todo.Close(); err != nil {
		return err
	}
	r.todo = newFrontier(r.cfg.TempDir, memEntries)
	r.seen = newSeenSet(len(rest.Seen)/8 + len(rest.Todo))
	for b := rest.Seen; len(b) >= 8; b = b[8:] {
		r.seen[binary.BigEndian.Uint64(b)] = struct{}{}
	}
	for _, p := range rest.Todo {
		e := entry{URL: p.URL, Depth: p.Depth, Parent: p.Parent}
		if keep != nil && !keep(&e) {
			continue
		}
		if err := r.todo.Push(e); err != nil {
			return err
		}
	}
	r.requests = rest.Requests
	return nil
}

// continueFrom starts the fresh run from rest, the continuation of a crawl
// another volunteer began. A rest comes from that volunteer, so only URLs
// this task may crawl are taken.
func (r *run) continueFrom(rest *task.Rest) error {
	return r.load(rest, func(e *entry) bool {
		u, err := urls.Canonical(e.URL, nil)
		if err != nil || !r.hosts[u.Host] || e.Depth > r.t.MaxDepth || !r.filter.Match(u) {
			return false
		}
		e.URL = u.String()
		r.seen.Add(e.URL)
		return true
	})
}

// resume replaces the fresh run's state with p's.
func (r *run) resume(p *Progress) error {
	if p.Result == nil || p.Result.TaskID != r.t.ID || len(p.Seen)%8 != 0 {
		return fmt.Errorf("task %s: progress is not this task's", r.t.ID)
	}
	if err := r.load(&p.Rest, nil); err != nil {
		return err
	}
	for _, h := range p.Hosts {
		r.hosts[h] = true
	}
	res := *p.Result
	res.InterSite = slices.Clone(res.InterSite)
	for _, s := range res.InterSite {
		r.interSeen.Add(s)
	}
	r.res = &res
	r.addrs = slices.Clone(res.HostAddrs)
	r.failures = p.Failures
	// The crawl this one goes on from may have sent its last request just
	// before it stopped, and this process's host clock does not know: the
	// first request waits the whole wait from now.
	r.delay = max(r.delay, min(time.Duration(p.Wait), MaxCrawlDelay))
	r.lastReq = time.Now()
	for _, c := range p.Robots {
		age := r.c.now().Sub(c.Fetched)
		u, err := url.Parse(c.Origin)
		if age < 0 || age >= RobotsTTL || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			continue // asked again when the run needs it
		}
		rb := robotsForStatus(c.Status, c.Body, r.token)
		rb.kept, rb.sitemapsRead, rb.fetched = &c, c.SitemapsRead, c.Fetched
		r.adoptRobots(c.Origin, u, rb)
	}
	r.sitemaps.listed = p.SitemapPages
	for _, u := range p.NotModified {
		if r.sitemaps.notModified == nil {
			r.sitemaps.notModified = make(map[string]bool, len(p.NotModified))
		}
		r.sitemaps.notModified[u] = true
	}
	return nil
}

// progress returns the run's state now; it is called between pages.
func (r *run) progress() (*Progress, error) {
	p := &Progress{Rest: task.Rest{Requests: r.requests}, Failures: r.failures, Wait: task.Duration(r.delay)}
	todo, err := r.todo.entries()
	if err != nil {
		return nil, err
	}
	p.Todo = make([]Pending, len(todo))
	for i, e := range todo {
		p.Todo[i] = Pending{URL: e.URL, Depth: e.Depth, Parent: e.Parent}
	}
	p.Seen = make([]byte, 0, 8*len(r.seen))
	for h := range r.seen {
		p.Seen = binary.BigEndian.AppendUint64(p.Seen, h)
	}
	for h := range r.hosts {
		p.Hosts = append(p.Hosts, h)
	}
	slices.Sort(p.Hosts)
	for _, rb := range r.robots {
		if rb.kept != nil {
			c := *rb.kept
			c.SitemapsRead = rb.sitemapsRead
			p.Robots = append(p.Robots, c)
		}
	}
	slices.SortFunc(p.Robots, func(a, b RobotsCopy) int { return strings.Compare(a.Origin, b.Origin) })
	p.SitemapPages = r.sitemaps.listed
	for u := range r.sitemaps.notModified {
		p.NotModified = append(p.NotModified, u)
	}
	slices.Sort(p.NotModified)
	res := *r.res
	res.InterSite = slices.Clone(res.InterSite)
	r.hostAsks(&res)
	p.Result = &res
	return p, nil
}

// entries returns every waiting entry in order, leaving f as it was.
func (f *frontier) entries() ([]entry, error) {
	out := slices.Clone(f.mem[f.head:])
	if f.spilled == 0 {
		return out, nil
	}
	if err := f.w.Flush(); err != nil {
		return nil, fmt.Errorf("flush URLtodo spill file: %w", err)
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f.file, f.rOff, f.wOff-f.rOff), 64<<10)
	for range f.spilled {
		e, _, err := readEntry(br)
		if err != nil {
			return nil, fmt.Errorf("read URLtodo spill file: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// DecodeProgress decodes a checkpoint stored with json.Marshal, checking
// what resume relies on.
func DecodeProgress(b []byte) (*Progress, error) {
	var p Progress
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("decode crawl progress: %w", err)
	}
	if p.Result == nil || len(p.Seen)%8 != 0 || p.Requests < 0 {
		return nil, errors.New("decode crawl progress: incomplete")
	}
	return &p, nil
}
