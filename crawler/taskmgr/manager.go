package taskmgr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/task"
)

// Defaults for zero Options fields.
const (
	DefaultThreads    = 3
	DefaultGrace      = 5 * time.Second
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 5 * time.Minute
	DefaultPoll       = 5 * time.Second
)

// Options configure a Manager. Queue, Runner, Uploader and SpoolDir are
// required; zero values of the rest take the defaults noted.
type Options struct {
	Queue    *queue.Queue
	Runner   Runner
	Uploader Uploader
	// Receipts keeps receipts once uploads are acknowledged; nil keeps them
	// only in the queue.
	Receipts ReceiptSink
	// Reporter, when set, is told of tasks cancelled for waiting longer
	// than their recrawl interval.
	Reporter Reporter
	// Leaser, when set, claims each task's host lease before it starts,
	// renews it while it runs and releases it when the crawl stops
	// unfinished. Tasks without a lease run without.
	Leaser Leaser
	// Outcomes, when set, hears how every finished crawl ended (its
	// task.Result.Strike): the governor pauses crawling when too many
	// sites challenge this volunteer.
	Outcomes Outcomes
	// LeaseMargin is how long before its lease expires a crawl stops;
	// ClaimRetry how long a task whose claim was not granted waits.
	// Defaults DefaultLeaseMargin and DefaultClaimRetry.
	LeaseMargin, ClaimRetry time.Duration
	// Stopper must be the Gate of Runner's crawler; nil means running crawls
	// are only cancelled after Grace at shutdown.
	Stopper *Stopper
	// SpoolDir holds spool files; created if missing.
	SpoolDir string
	// CheckpointEvery is the pages between two checkpoints of a running
	// task when Runner is a Resumer; 0 = crawler.DefaultCheckpointEvery.
	CheckpointEvery int
	// Hold, when set, is asked before each start: while it says so no
	// task starts from the queue and running ones go on (a client paused
	// by its contributor, or finishing before a pause). Call Wake when
	// its answer turns to false.
	Hold func() bool
	// Threads is CL, the maximum number of running tasks. Default 3.
	Threads int
	// Overload is OT, the contributor's overloading threshold; when it is
	// below Threads it is the limit. 0 = no threshold.
	Overload int
	// HandOff, set for a volunteer of a network, ends a task that a
	// graceful shutdown interrupts as a result cut short at its last
	// checkpoint (task.StoppedHandedOff, with the rest of the crawl), and
	// uploads it within Grace: the manager issues the rest to whoever
	// takes the host over. Unset, the task stays running and resumes at
	// the next start.
	HandOff bool
	// Grace bounds how long running pages may take to finish at shutdown,
	// and the uploads after them: HandOff's, and those of results that
	// had finished and were waiting for one. Default 5s.
	Grace time.Duration
	// MinBackoff and MaxBackoff bound the exponential wait between upload
	// attempts. Defaults 1s and 5m.
	MinBackoff, MaxBackoff time.Duration
	// Poll is how often the queue is checked without a wake-up. Default 5s.
	Poll   time.Duration
	Now    func() time.Time // default time.Now
	Logger *slog.Logger     // default slog.Default()
}

// Manager runs tasks from a queue. Create it with New and run it with Serve.
type Manager struct {
	opts Options
	q    *queue.Queue
	log  *slog.Logger
	wake chan struct{}
	// again is closed, and replaced, by RetryNow: it ends every wait
	// between delivery attempts.
	againMu sync.Mutex
	again   chan struct{}
	// refused and expired count load-dependent failures since New: tasks
	// refused by a full queue and tasks cancelled for waiting too long
	// (design.md §9: the manager's reassignment must count only these).
	refused, expired atomic.Int64

	mu sync.Mutex // guards the fields below
	// running holds the task threads by task ID.
	running map[string]*thread
	// notBefore holds tasks whose lease claim was not granted, by ID:
	// when they may be tried again.
	notBefore map[string]time.Time
	// leases are the leases running tasks hold, by task ID; ended, once
	// EndLeases was called, is why every lease is over, and ends each
	// claimed after it at once.
	leases map[string]*held
	ended  error
	// revoked are leases EndLease ended before their claim was
	// recorded, by task ID, with why (at most maxRevoked).
	revoked  map[string]error
	threads  int
	overload int
	// uploading counts upload goroutines.
	uploading int
	serving   bool
}

// thread is one running task, with counters for the status.
type thread struct {
	id, channel string
	host        string // the web host crawled
	expected    int    // the task's expected pages, for Load
	started     time.Time
	pages       atomic.Int64
	depth       atomic.Int64
	// resumed is the pages a resumed crawl had when it started again;
	// outlook is the crawl's frontier, for the time-left estimate.
	resumed atomic.Int64
	outlook crawler.Frontier
}

// New checks opts and returns a Manager.
func New(opts Options) (*Manager, error) {
	switch {
	case opts.Queue == nil || opts.Runner == nil || opts.Uploader == nil:
		return nil, errors.New("task manager: queue, runner and uploader are required")
	case opts.SpoolDir == "":
		return nil, errors.New("task manager: no spool directory")
	}
	if err := os.MkdirAll(opts.SpoolDir, 0o700); err != nil {
		return nil, fmt.Errorf("task manager: create spool directory: %w", err)
	}
	if opts.Threads <= 0 {
		opts.Threads = DefaultThreads
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.MinBackoff)
	}
	if opts.LeaseMargin <= 0 {
		opts.LeaseMargin = DefaultLeaseMargin
	}
	if opts.ClaimRetry <= 0 {
		opts.ClaimRetry = DefaultClaimRetry
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Manager{
		opts: opts, q: opts.Queue, log: opts.Logger,
		wake:    make(chan struct{}, 1),
		again:   make(chan struct{}),
		running: make(map[string]*thread), notBefore: make(map[string]time.Time),
		threads: opts.Threads, overload: max(opts.Overload, 0),
	}, nil
}

// EffectiveThreads is the number of task threads allowed with connection
// limit cl and overloading threshold ot (0 = none): OT ≥ CL, otherwise CL
// drops to OT (paper 002 §4.2). At least one thread always runs.
func EffectiveThreads(cl, ot int) int {
	n := cl
	if ot > 0 && ot < n {
		n = ot
	}
	return max(n, 1)
}

// Running returns how many tasks run.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.running)
}

// SetLimits changes CL and OT while running (0 keeps the current value of
// threads; overload 0 means no threshold).
func (m *Manager) SetLimits(threads, overload int) {
	m.mu.Lock()
	if threads > 0 {
		m.threads = threads
	}
	m.overload = max(overload, 0)
	m.mu.Unlock()
	m.Wake()
}

// Submit queues a task: raw is what arrived, t its decoded form, proof
// what shows the manager the task's lease may be claimed here (nil in
// solo mode). It returns queue.ErrFull and queue.ErrDuplicate as the
// queue does.
func (m *Manager) Submit(raw, proof []byte, t *task.Task) error {
	if err := m.q.Enqueue(raw, proof, t, m.opts.Now()); err != nil {
		if errors.Is(err, queue.ErrFull) {
			m.refused.Add(1)
		}
		return err
	}
	m.Wake()
	return nil
}

// RetryNow says the network's manager answers again: deliveries waiting
// out a backoff try again at once (and back off from the start should
// they fail), and tasks waiting to claim their lease may try now.
func (m *Manager) RetryNow() {
	m.againMu.Lock()
	close(m.again)
	m.again = make(chan struct{})
	m.againMu.Unlock()
	m.mu.Lock()
	clear(m.notBefore)
	m.mu.Unlock()
	m.Wake()
}

// retrySignal returns the channel RetryNow closes next.
func (m *Manager) retrySignal() <-chan struct{} {
	m.againMu.Lock()
	defer m.againMu.Unlock()
	return m.again
}

// Wake makes the manager look at the queue now.
func (m *Manager) Wake() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Serve runs tasks until ctx ends, then shuts down as the package doc
// describes. It resumes pending uploads first. It returns nil after an
// orderly shutdown.
func (m *Manager) Serve(ctx context.Context) error {
	m.mu.Lock()
	if m.serving {
		m.mu.Unlock()
		return errors.New("task manager: already serving")
	}
	m.serving = true
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.serving = false; m.mu.Unlock() }()

	// Crawls outlive ctx by up to Grace; uploads stop with ctx, and the
	// results waiting for one are tried once more within Grace
	// (deliverAtStop), else at the next start.
	crawlCtx, cancelCrawls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelCrawls()
	var wg sync.WaitGroup
	defer wg.Wait()

	pending, err := m.q.Uploads()
	if err != nil {
		return fmt.Errorf("task manager: resume uploads: %w", err)
	}
	m.removeOrphans(pending)
	for _, r := range pending {
		m.startUpload(ctx, &wg, r)
	}
	if len(pending) > 0 {
		m.log.Info("Resuming uploads", "count", len(pending))
	}

	done := make(chan string)
	tick := time.NewTicker(m.opts.Poll)
	defer tick.Stop()
	for {
		if err := m.fill(ctx, crawlCtx, &wg, done); err != nil {
			m.log.Error("Cannot take tasks from the queue", "err", err)
		}
		select {
		case id := <-done:
			m.finished(id)
		case <-m.wake:
		case <-tick.C:
		case <-ctx.Done():
			m.drain(done, cancelCrawls)
			wg.Wait() // the crawls ended; the uploads stopped with ctx
			m.deliverAtStop(ctx)
			return nil
		}
	}
}

// fill starts tasks while fewer than the limit run.
func (m *Manager) fill(ctx, crawlCtx context.Context, wg *sync.WaitGroup, done chan<- string) error {
	for {
		m.mu.Lock()
		free := EffectiveThreads(m.threads, m.overload) - len(m.running)
		m.mu.Unlock()
		if free <= 0 || ctx.Err() != nil || (m.opts.Hold != nil && m.opts.Hold()) {
			return nil
		}
		r, expired, err := m.q.Next(m.opts.Now(), m.startable())
		if err != nil {
			return err
		}
		m.expired.Add(int64(len(expired)))
		for _, e := range expired {
			m.log.Info("Task cancelled", "task", e.ID, "channel", e.Task.Channel, "reason", e.Reason)
			if rp := m.opts.Reporter; rp != nil {
				wg.Go(func() {
					if err := rp.Expired(ctx, e.Raw); err != nil {
						m.log.Debug("Cancelled task not reported", "task", e.ID, "err", err)
					}
				})
			}
		}
		if r == nil {
			return nil
		}
		th := &thread{id: r.ID, channel: r.Task.Channel, host: r.Task.Host(), expected: r.Task.ExpectedPages, started: m.opts.Now()}
		m.mu.Lock()
		m.running[r.ID] = th
		m.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.runTask(ctx, crawlCtx, wg, r, th)
			done <- r.ID
		}()
	}
}

func (m *Manager) finished(id string) {
	m.mu.Lock()
	delete(m.running, id)
	m.mu.Unlock()
}

// drain stops the running crawls: first by the Stopper, after Grace by
// cancelling them.
func (m *Manager) drain(done <-chan string, cancelCrawls context.CancelFunc) {
	if m.opts.Stopper != nil {
		m.opts.Stopper.Stop()
	}
	grace := time.NewTimer(m.opts.Grace)
	defer grace.Stop()
	for {
		m.mu.Lock()
		n := len(m.running)
		m.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case id := <-done:
			m.finished(id)
		case <-grace.C:
			m.log.Warn("Cancelling running tasks after the shutdown grace period", "count", n, "grace", m.opts.Grace)
			cancelCrawls()
		}
	}
}

// stopping reports whether shutdown began.
func (m *Manager) stopping(ctx context.Context) bool {
	return ctx.Err() != nil || (m.opts.Stopper != nil && m.opts.Stopper.Stopped())
}

// removeOrphans deletes spool files nothing needs: neither a pending upload
// nor the checkpoint of a task to resume (partial spools of tasks handed
// over, or interrupted before their first checkpoint). Nothing runs yet,
// so no other spool is being written.
func (m *Manager) removeOrphans(pending []*queue.Record) {
	keep := make(map[string]bool, len(pending))
	for _, r := range pending {
		keep[filepath.Base(r.Spool)] = true
	}
	waiting, err := m.q.Waiting()
	if err != nil {
		m.log.Warn("Cannot list queued tasks; keeping every spool", "err", err)
		return
	}
	for _, r := range waiting {
		if len(r.Progress) > 0 {
			keep[filepath.Base(spoolPath(m.opts.SpoolDir, r.ID))] = true
		}
	}
	entries, err := os.ReadDir(m.opts.SpoolDir)
	if err != nil {
		m.log.Warn("Cannot list spool files", "err", err)
		return
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !keep[e.Name()] {
			if err := os.Remove(filepath.Join(m.opts.SpoolDir, e.Name())); err != nil {
				m.log.Warn("Cannot delete a partial spool", "err", err)
			}
		}
	}
}
