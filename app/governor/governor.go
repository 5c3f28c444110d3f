package governor

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/task"
)

// DefaultInterval is how often the governor samples and decides.
const DefaultInterval = time.Second

// Options configure a Governor. Zero fields take the defaults noted.
type Options struct {
	// Sampler reads CPU and memory; default a SystemSampler (gopsutil).
	Sampler Sampler
	// Power tells whether the computer runs on battery (SystemPower);
	// nil: never read, crawling as on mains power.
	Power Power
	// Presence tells whether nobody uses the computer (SystemPresence),
	// for the idle limits; nil: never read, the limits for use apply.
	Presence Presence
	// Disk measures Hivecrawl's disk use and its volume's free space,
	// for the disk limits; nil: never read, no disk limit applies.
	Disk Disk
	// SoftLimit sets the Go runtime's soft memory limit without a memory
	// cap too (softLimit): for a process that runs one client. With a
	// cap the limit is always set, 80 % of it.
	SoftLimit bool
	// HoldChanged is called, outside the governor's lock, when Holding's
	// answer changes: the task manager starts tasks again when it ends.
	HoldChanged func()
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Interval between samples; default 1s. It is also the duty cycle's
	// period.
	Interval time.Duration
	// UsageFile keeps the transfer counters across restarts, so quotas
	// hold; "" = not kept.
	UsageFile string
	// Release returns free heap to the operating system: once the client
	// has been quiet for ReleaseAfter, and when RSS first goes over the
	// memory cap. Default debug.FreeOSMemory.
	Release func()
	// PageOut lets the resident pages of the executable go: when the
	// client has been quiet for ReleaseAfter, then again after twice as
	// long each time while it stays quiet, up to every maxPageOutEvery,
	// since the code a settling overlay ran comes back before the client
	// is down to what it runs while idle. Default pageOutCode.
	PageOut func()
	Logger  *slog.Logger
}

// State summarises what the governor lets the client do.
type State string

// The states Status reports.
const (
	Running   State = "running"   // crawling freely
	Throttled State = "throttled" // crawling, held back by the CPU cap
	Paused    State = "paused"    // not starting requests; see Reasons
)

// Governor enforces the limits. Create it with New, run Serve, and hand
// Down() to the crawler as its Limiter and the Governor itself as its Gate.
type Governor struct {
	opts   Options
	down   *Bucket
	up     *Bucket
	conns  *Conns
	parses *Budget

	mu       sync.Mutex // guards the fields below
	cfg      config.Config
	pol      policy
	usage    Usage
	reasons  []string
	kinds    []string // the reasons' kinds (PauseKinds)
	counted  int64    // down+up totals already added to usage
	prev     [2]int64 // down and up totals at the last tick
	last     time.Time
	downRate int64 // measured over the last interval
	upRate   int64
	synced   time.Time // last synced write of the counters
	dirty    bool
	memLimit int64     // the Go runtime's soft memory limit set (softLimit)
	busy     time.Time // last tick with bytes crawled or uploaded (start-up counts); zero once released
	// nextPageOut is when a quiet client pages its code out again, every
	// pageOutEvery, which doubles up to maxPageOutEvery.
	nextPageOut  time.Time
	pageOutEvery time.Duration
	// nextPower is when Tick next reads Options.Power; powerFailed is
	// set while its readings fail (Tick's goroutine only).
	nextPower                   time.Time
	powerFailed, presenceFailed bool
	// diskStale is set when a task ended since the last disk reading.
	diskStale bool
	// hold is why no new task may start (Holding); "" = none.
	hold string
	wake chan struct{} // closed and replaced when reasons may have cleared
	// diskMu serialises readings of Options.Disk (Tick, Holding) and
	// guards nextDisk (when Tick reads it next) and diskFailed (set
	// while readings fail). It is taken before mu, never inside it.
	diskMu     sync.Mutex
	nextDisk   time.Time
	diskFailed bool
	// slow is set while Serve samples every idleSampling Intervals;
	// active tells it that a crawl asked to go meanwhile.
	slow   bool
	active chan struct{}
	// moving hears from the buckets that bytes moved, so that Serve writes
	// the counters again at once after a pause.
	moving chan struct{}
}

// New returns a governor for cfg. It reads the saved transfer counters;
// a damaged counters file is reported and counting starts again.
func New(ctx context.Context, cfg config.Config, opts Options) (*Governor, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Release == nil {
		opts.Release = debug.FreeOSMemory
	}
	if opts.PageOut == nil {
		opts.PageOut = func() { pageOutCode() }
	}
	if opts.Sampler == nil {
		s, err := NewSystemSampler(ctx)
		if err != nil {
			return nil, fmt.Errorf("start governor: %w", err)
		}
		opts.Sampler = s
	}
	g := &Governor{
		opts:   opts,
		down:   NewBucket(0),
		up:     NewBucket(0),
		moving: make(chan struct{}, 1),
		conns:  NewConns(0),
		parses: NewBudget(0),
		wake:   make(chan struct{}),
		active: make(chan struct{}, 1),
	}
	g.down.moved, g.up.moved = g.moving, g.moving
	if opts.UsageFile != "" {
		u, err := loadUsage(opts.UsageFile)
		if err != nil {
			// Written atomically, the file is damaged only from outside.
			aside, merr := boltfile.MoveAsidePath(opts.UsageFile, opts.Now())
			if merr != nil {
				return nil, fmt.Errorf("transfer counters damaged (%v), and moving them aside failed: %w", err, merr)
			}
			opts.Logger.Warn("Transfer counters damaged; moved aside, counting from zero", "problem", err.Error(), "moved_to", aside)
		}
		g.usage = u
	}
	g.last = opts.Now()
	g.busy = g.last
	g.Apply(cfg)
	return g, nil
}

// Down is the download bucket: the crawler's Limiter.
func (g *Governor) Down() *Bucket { return g.down }

// Up is the upload bucket.
func (g *Governor) Up() *Bucket { return g.up }

// Conns is the connection cap.
func (g *Governor) Conns() *Conns { return g.conns }

// Parses is the memory budget page parses are admitted against: half the
// memory cap (none without a cap).
func (g *Governor) Parses() *Budget { return g.parses }

// Apply makes cfg the live configuration: caps change at once and pauses
// are re-decided without waiting for the next sample.
func (g *Governor) Apply(cfg config.Config) {
	g.mu.Lock()
	g.cfg = cfg
	changed := g.decideLocked(g.opts.Now())
	g.mu.Unlock()
	g.holdChanged(changed)
}

// holdChanged tells Options.HoldChanged, when changed, that Holding's
// answer changed; g.mu must not be held.
func (g *Governor) holdChanged(changed bool) {
	if changed && g.opts.HoldChanged != nil {
		g.opts.HoldChanged()
	}
}

// decideLocked recomputes caps, reasons and the hold, and reports
// whether the hold changed (holdChanged tells it once g.mu is let go);
// g.mu must be held.
func (g *Governor) decideLocked(now time.Time) (holdChanged bool) {
	g.usage.roll(now, g.cfg.QuotaResetDay)
	eff := g.effectiveLocked()
	down, up := eff.Download, eff.Upload
	if w, ok := g.cfg.Schedule.Active(now); ok {
		if w.Download > 0 {
			down = w.Download
		}
		if w.Upload > 0 {
			up = w.Upload
		}
	}
	// Half the cap for parses at once: the rest is the client itself and
	// the bodies being fetched.
	g.parses.SetLimit(int64(g.cfg.Memory) / 2)
	if limit := softLimit(g.cfg, g.opts.SoftLimit); limit != g.memLimit {
		g.memLimit = limit
		debug.SetMemoryLimit(limit)
	}
	g.down.SetRate(int64(down))
	g.up.SetRate(int64(up))
	g.conns.SetCap(g.cfg.Connections)
	reasons, kinds := g.pol.reasons(g.cfg, now, g.usage)
	held := g.hold
	_, g.hold = g.pol.diskLimits(g.cfg, held != "")
	if !slices.Equal(kinds, g.kinds) {
		// Logged when a reason comes or goes, not when a figure in one
		// moves (the other programs' CPU share, read every second).
		g.opts.Logger.Info("Crawling state changed", "reasons", strings.Join(reasons, "; "))
	}
	g.reasons, g.kinds = reasons, kinds
	// Wake waiters to re-check; those still held back wait again.
	close(g.wake)
	g.wake = make(chan struct{})
	return g.hold != held
}

// Tick takes one sample and decides. Serve calls it every Interval; tests
// call it directly with a scripted Sampler and clock.
func (g *Governor) Tick(ctx context.Context) error {
	r, err := g.opts.Sampler.Sample(ctx)
	now := g.opts.Now()
	g.readPower(ctx, now)
	g.readPresence(ctx)
	g.readDisk(ctx, now, false)
	g.mu.Lock()
	wasMem := g.pol.memPaused
	if err == nil {
		g.pol.observe(g.effectiveLocked(), r)
	}
	overMemory := g.pol.memPaused && !wasMem
	moved := g.countLocked(now)
	quiet := g.quietLocked(now, moved)
	pageOut := g.pageOutLocked(now, quiet)
	changed := g.decideLocked(now)
	g.mu.Unlock()
	g.holdChanged(changed)
	if overMemory || quiet {
		// Return freed heap to the OS: over the cap, so the next reading
		// shows what is really still in use; when quiet, so an idle
		// client keeps only what it uses.
		g.opts.Release()
	}
	if pageOut {
		g.opts.PageOut()
	}
	if err != nil {
		return fmt.Errorf("sample load: %w", err)
	}
	return nil
}

// idleSampling is how many Intervals apart Serve samples once the client
// has been quiet for ReleaseAfter: nothing crawls then, so nothing needs
// throttling, and reading the load each second was half of an idle
// client's CPU samples. Wait brings the sampling back at once when a crawl
// starts.
const idleSampling = 5

// Serve samples every Interval and applies each configuration received on
// updates (nil = none) until ctx ends; then it saves the counters.
func (g *Governor) Serve(ctx context.Context, updates <-chan config.Config) error {
	t := time.NewTimer(g.opts.Interval)
	defer t.Stop()
	tick := func() {
		if err := g.Tick(ctx); err != nil && ctx.Err() == nil {
			g.opts.Logger.Warn("Cannot read the machine's load", "err", err)
		}
		g.mu.Lock()
		g.slow = g.busy.IsZero() // quiet since the last release
		next := g.opts.Interval
		if g.slow {
			next *= idleSampling
		}
		g.mu.Unlock()
		t.Reset(next)
	}
	// The counters are written every usageSaveEvery while bytes move;
	// once a write finds none moved, the next waits for the buckets to say
	// bytes move again (moving), so an idle client does not wake twenty
	// times a second.
	save := time.NewTimer(usageSaveEvery)
	defer save.Stop()
	saving := true
	defer func() {
		g.mu.Lock()
		g.accountLocked(g.opts.Now())
		g.mu.Unlock()
		g.saveUsage(true)
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case cfg := <-updates:
			g.Apply(cfg)
		case <-g.active:
			tick()
		case <-g.moving:
			if !saving {
				saving = true
				save.Reset(usageSaveEvery)
			}
		case <-t.C:
			tick()
		case <-save.C:
			if saving = g.persistUsage(); saving {
				save.Reset(usageSaveEvery)
			}
		}
	}
}

// Wait blocks while crawling is paused and, under the CPU cap, during the
// held-back part of each period. It returns ctx's error when ctx ends.
// Wait makes Governor a crawler.Gate.
func (g *Governor) Wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		if g.slow {
			// A crawl starts while the client was quiet: sample now,
			// and every Interval again.
			g.slow = false
			select {
			case g.active <- struct{}{}:
			default:
			}
		}
		paused := len(g.reasons) > 0
		wake := g.wake
		off := offFor(g.opts.Now(), g.pol.throttle, g.opts.Interval)
		g.mu.Unlock()
		if !paused && off == 0 {
			return nil
		}
		if paused {
			select {
			case <-wake:
				continue
			case <-ctx.Done():
				return fmt.Errorf("wait to crawl: %w", ctx.Err())
			}
		}
		t := time.NewTimer(off)
		select {
		case <-wake:
			t.Stop()
		case <-t.C:
			return nil
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait to crawl: %w", ctx.Err())
		}
	}
}

// TaskEnded records how a finished crawl ended (taskmgr.Outcomes): a
// challenge counts towards the challenge pause.
func (g *Governor) TaskEnded(strike string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.opts.Now()
	g.pol.taskEnded(now, strike == task.StrikeChallenge)
	g.diskStale = g.opts.Disk != nil
	g.decideLocked(now)
}
