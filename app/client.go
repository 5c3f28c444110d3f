package app

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

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/eventlog"
	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/app/ledger"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/internal/floor"
	"github.com/hivecrawl/hivecrawl/internal/netguard"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Defaults for zero Options fields.
const (
	DefaultSeedInterval = time.Hour
	DefaultSeedDepth    = 3
	DefaultSeedPages    = 200
	// keepFinished is how long finished tasks stay in the queue file.
	keepFinished = 7 * 24 * time.Hour
	pruneEvery   = time.Hour
)

// Options configure a Client. Zero values take the defaults noted.
type Options struct {
	// Home isolates an instance: config in Home/config, data in Home/data.
	// Empty = the per-user directories (see app/paths).
	Home string
	// Mode is how the client takes part; empty = ModeNetwork when a
	// network profile is stored, else ModeSolo.
	Mode Mode
	// Seeds is a seeds file (one URL per line). Solo mode adds its URLs
	// to the embedded manager's channels; local mode crawls them itself.
	// A client in a network takes its tasks from the manager only.
	Seeds string
	// SeedTasks shapes the tasks made from Seeds. Defaults: depth 3, 200
	// pages, resubmitted every hour, the crawler's politeness wait.
	SeedTasks SeedTasks
	// AllowLoopback lets the crawler fetch from loopback addresses (tests
	// and local fixtures only); AllowTestNets from the documentation
	// ranges, with loopback still refused (fixtures in network namespaces
	// a test builds, swarm/netlab).
	AllowLoopback bool
	AllowTestNets bool
	// SourceIP is the local address crawl connections are made from;
	// empty = the system's choice (the demo sets one per client).
	SourceIP string
	// Desktop says the tray, and with it the start-at-login entry, run in
	// this process. Without it (headless, a systemd unit) start_at_login
	// has nothing to act on: turning it on is refused with what to do
	// instead, and the status tells the dashboard so.
	Desktop bool
	// LowPriority gives the whole process the lowest CPU priority (nice
	// 19 on Unix) before the client starts, so the volunteer's own work
	// always comes first: what the hivecrawl commands do. It is an option
	// because it is the process's, not the client's: a process that runs
	// a manager beside clients (the tests' swarms) would starve its
	// manager on a busy machine.
	LowPriority bool
	// SoftMemoryLimit sets the Go runtime's soft memory limit for the
	// client's threads even without a memory cap (governor.Options
	// SoftLimit), so that a large page is collected before it sets the
	// peak. Like LowPriority it is the process's: the hivecrawl commands
	// set it, and a process that runs several clients must not.
	SoftMemoryLimit bool
	// Threads, when set, overrides the configured number of task threads
	// (CL) until the configuration changes.
	Threads int
	// DelayFloor is the least politeness wait a network's task may ask
	// for; a network asking less is refused (internal/floor). 0 =
	// floor.MinDelay, or no floor under AllowLoopback or AllowTestNets,
	// whose fixtures are local. Tests of the floor itself set it.
	DelayFloor time.Duration
	// Grace bounds the shutdown wait for pages in flight. Default 5s.
	Grace time.Duration
	// Adversary, demo only, makes the client a dishonest volunteer, so
	// the demo can show what validation, leases and certificates catch.
	// Network mode only.
	Adversary *Adversary
	// SettleEvery is how often a network client asks the storage module
	// whether its pending credit was confirmed or revoked. Default 1m.
	SettleEvery time.Duration
	// Network tunes the overlay part (solo and network modes).
	Network NetworkOptions
	// Manager tunes solo mode's embedded manager; its Dir, Listen and
	// AllowLoopback are set by the client.
	Manager manager.Options
	// Sampler reads CPU and memory for the governor; default gopsutil.
	Sampler governor.Sampler
	// Power tells the governor whether the computer runs on battery
	// (governor.SystemPower); nil: never read. The commands set it, tests
	// leave it unset unless they test it, so that a laptop running the
	// tests on battery does not pause their clients.
	Power governor.Power
	// Presence tells the governor whether nobody uses the computer, for
	// the idle limits (governor.SystemPresence); nil: never read. Set by
	// the commands, as Power.
	Presence governor.Presence
	// Disk measures what the client keeps on disk and the free space
	// left, for the disk limits; nil: its directories and their volume.
	Disk governor.Disk
	// Version is reported in the status and names the crawler in its
	// default User-Agent (crawler.UserAgent).
	Version string
	// Handover, when set, receives the queued and running tasks at a
	// graceful shutdown (the overlay sends them to the peer taking over
	// this peer's zone); they are marked handed over first, so a failed
	// handover loses them here and the manager's resubmission re-executes
	// them, as after a crash. When nil they stay queued for the next start.
	Handover func(ctx context.Context, tasks []*queue.Record) error
	// Ready, when set, is called once (in its own goroutine) when the
	// local API and the web page are being served, so a command can print
	// where they are.
	Ready  func(ctx context.Context, mode Mode, apiFile string)
	Logger *slog.Logger     // default slog.Default()
	Now    func() time.Time // default time.Now
}

// Client is the volunteer client: create it with New, run it with Serve.
type Client struct {
	opts   Options
	dirs   paths.Dirs
	log    *slog.Logger
	cfg    *config.Store
	gov    *governor.Governor
	ledger *ledger.Ledger
	// settleAfter is where the next ask about pending receipts goes on
	// from (ledger.PendingAfter); only settleReceipts' loop uses it.
	settleAfter []byte
	api         atomic.Pointer[localapi.Server] // set by Serve
	q           *queue.Queue
	mgr         *taskmgr.Manager
	feeder      *feeder // nil without a seeds file or outside local mode
	mode        Mode
	net         *network         // nil in local mode
	solo        *manager.Manager // set in solo mode
	started     time.Time
	events      *eventlog.Log

	// finishing is set from Finish until the running tasks ended and the
	// client paused, or Resume called the finish off; closed is set by
	// Close, so that Finish's watch ends with the client.
	finishing, closed atomic.Bool

	closeOnce sync.Once
	closeErr  error
}

// New resolves the directories, opens the task queue and assembles the
// client. Call Serve, or Close if Serve will not run.
func New(ctx context.Context, opts Options) (*Client, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	st := &opts.SeedTasks
	if st.Interval <= 0 {
		st.Interval = DefaultSeedInterval
	}
	if st.MaxDepth == 0 {
		st.MaxDepth = DefaultSeedDepth
	}
	if st.MaxPages == 0 {
		st.MaxPages = DefaultSeedPages
	}
	var seeds []Seed
	if opts.Seeds != "" {
		b, err := os.ReadFile(opts.Seeds)
		if err != nil {
			return nil, fmt.Errorf("read seeds file: %w", err)
		}
		if seeds, err = ParseSeeds(b); err != nil {
			return nil, fmt.Errorf("seeds file %s: %w", opts.Seeds, err)
		}
	}

	dirs, err := paths.Resolve(opts.Home)
	if err != nil {
		return nil, err
	}
	if err := dirs.Ensure(); err != nil {
		return nil, err
	}
	// Everything at Info and above also goes to the event log: the
	// rotating file under the state directory and the dashboard's view.
	events, err := eventlog.Open(dirs.LogFile())
	if err != nil {
		opts.Logger.Warn("No log file; events are kept in memory only", "err", err)
		events, _ = eventlog.Open("")
	}
	opts.Logger = slog.New(events.Handler(opts.Logger.Handler()))
	c := &Client{opts: opts, dirs: dirs, log: opts.Logger, events: events, started: opts.Now()}
	c.cfg = config.Open(dirs.ConfigFile())
	if err := c.cfg.Problem(); err != nil {
		c.log.Warn("Configuration file damaged", "err", err)
	}
	for _, note := range c.cfg.Notes() {
		c.log.Info("Configuration setting ignored", "note", note)
	}
	cfg := c.cfg.Get()
	if opts.Threads > 0 {
		cfg.Threads = opts.Threads
	}
	if opts.LowPriority {
		if err := governor.LowerPriority(); err != nil {
			c.log.Warn("Cannot lower the process priority", "err", err)
		}
	}
	disk := opts.Disk
	if disk == nil {
		disk = dirUsage{dirs}
	}
	c.gov, err = governor.New(ctx, cfg, governor.Options{
		Sampler: opts.Sampler, Power: opts.Power, Presence: opts.Presence, Disk: disk, SoftLimit: opts.SoftMemoryLimit,
		Now: opts.Now, UsageFile: dirs.UsageFile(),
		// The task manager looks again when the disk lets tasks start.
		HoldChanged: func() {
			if c.mgr != nil {
				c.mgr.Wake()
			}
		},
		Logger: opts.Logger.With("part", "governor"),
	})
	if err != nil {
		return nil, err
	}

	c.ledger, err = ledger.Open(dirs.LedgerFile())
	if err != nil {
		return nil, err
	}
	spoolDir := filepath.Join(dirs.Data, "spool")
	c.q, err = queue.Open(dirs.QueueFile(), queue.Options{MaxLen: cfg.QueueLength, Reached: taskmgr.SpoolReach(spoolDir), Logger: opts.Logger})
	if err != nil {
		c.ledger.Close()
		return nil, err
	}
	if err := c.startNetwork(ctx, cfg, seeds); err != nil {
		c.Close()
		return nil, err
	}
	sign, botKey, err := c.net.requestSigner(dirs.Data)
	if err != nil {
		c.Close()
		return nil, err
	}
	stopper := taskmgr.NewStopper(c.gov)
	cr := crawler.New(crawler.Config{
		// The operator's task policy names the crawler; this is the name
		// for tasks that carry none (local mode). The contributor's delay
		// is a floor under the operator's wait, never a replacement.
		UserAgent:     crawler.UserAgent(opts.Version, crawler.ContactURL),
		Delay:         time.Duration(cfg.Delay),
		AllowLoopback: opts.AllowLoopback,
		AllowTestNets: opts.AllowTestNets,
		SourceIP:      opts.SourceIP,
		Gate:          stopper,
		Sign:          sign,
		Limiter:       c.gov.Down(),
		Admit:         c.gov.Parses(),
		WrapDial:      c.gov.Conns().Dial,
		TempDir:       filepath.Join(dirs.Data, "tmp"),
		Logger:        opts.Logger.With("part", "crawler"),
	})
	// Spill files a crash left behind are of no use: a resumed crawl
	// takes its URLtodo from its checkpoint.
	if err := os.RemoveAll(filepath.Join(dirs.Data, "tmp")); err != nil {
		c.log.Warn("Cannot delete old crawl spill files", "err", err)
	}
	if err := os.MkdirAll(filepath.Join(dirs.Data, "tmp"), 0o700); err != nil {
		c.Close()
		return nil, fmt.Errorf("create crawler temp directory: %w", err)
	}
	var (
		up       taskmgr.Uploader = &LocalUploader{Dir: filepath.Join(dirs.Data, "results"), Now: opts.Now}
		signer   crypto.PubKey
		reporter taskmgr.Reporter
		leaser   taskmgr.Leaser
		advEnv   AdversaryEnv // what opts.Adversary is given, one for all its parts
	)
	if c.net != nil {
		up, signer, reporter = c.net.uploader(cfg.Nickname, c.gov.Up()), c.net.key, c.net
		leaser = networkLeaser{nw: c.net, botKey: botKey}
		if opts.Adversary != nil {
			advEnv = c.adversaryEnv(cfg.Nickname, opts.Network.Heartbeat)
		}
		if a := opts.Adversary; a != nil && a.Uploads != nil {
			c.log.Warn("This client cheats: the results it uploads are forged (demo only)")
			up = a.Uploads(up, advEnv)
		}
	} else if opts.Adversary != nil {
		return nil, errors.New("new client: a dishonest volunteer needs a network to cheat")
	}
	var (
		runner taskmgr.Runner = cr
		pf     *policyFloor   // network mode: its tasks keep the politeness floor
	)
	if c.mode == ModeNetwork {
		pf = &policyFloor{nw: c.net, min: delayFloor(opts)}
		runner = floorRunner{cr: cr, floor: pf}
	}
	if a := opts.Adversary; a != nil && a.Runner != nil {
		c.log.Warn("This client does not crawl its tasks as asked (demo only)")
		runner = a.Runner(advEnv)
	}
	c.mgr, err = taskmgr.New(taskmgr.Options{
		Queue:    c.q,
		Runner:   runner,
		Uploader: up,
		Receipts: &ledgerSink{l: c.ledger, now: opts.Now, manager: signer},
		Reporter: reporter,
		Leaser:   leaser,
		Outcomes: c.gov,
		Stopper:  stopper,
		// Under the contributor's own pause no task starts, to wait at
		// its first request holding its host's lease; a finish holds
		// starts too, and so does a disk near its limits. apply's
		// SetLimits and the governor's HoldChanged wake the manager on a
		// change.
		Hold:     func() bool { return c.finishing.Load() || c.cfg.Get().Paused || c.gov.Holding() != "" },
		SpoolDir: spoolDir,
		Threads:  threadLimit(cfg),
		Overload: cfg.OverloadThreshold(),
		// A volunteer that leaves the network passes the rest of its
		// running crawls on instead of taking them along.
		HandOff: c.mode == ModeNetwork,
		Grace:   opts.Grace,
		Now:     opts.Now,
		Logger:  opts.Logger.With("part", "tasks"),
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	if c.net != nil {
		// Before attachNode registers the revocation handler that calls it.
		c.net.endLeases, c.net.endLease = c.mgr.EndLeases, c.mgr.EndLease
		nq := nodeQueue{q: c.q, m: c.mgr, paused: func() bool { p, _ := c.gov.Paused(); return p },
			holding: func() bool { return c.gov.Holding() != "" }, handBack: c.net.HandBack, floor: pf}
		nopts := c.opts.Network
		nopts.dataDir = dirs.Data
		if err := c.net.attachNode(nq, cfg, nopts); err != nil {
			c.Close()
			return nil, err
		}
		c.net.onBack = c.mgr.RetryNow
		if a := opts.Adversary; a != nil && a.Overlay != nil {
			c.log.Warn("This client attacks the overlay (demo only)")
			member := c.net.node
			c.net.adversary = func(ctx context.Context) { a.Overlay(ctx, advEnv, member) }
		}
	}
	if len(seeds) > 0 && c.mode == ModeLocal {
		c.feeder = &feeder{
			seeds: seeds, params: opts.SeedTasks, roundFile: filepath.Join(dirs.Data, "seeds-round.json"),
			q: c.q, m: c.mgr, now: opts.Now, log: opts.Logger.With("part", "seeds"),
		}
		if err := c.feeder.openRound(); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// startNetwork picks the client's mode and, outside local mode, starts
// the libp2p host (and solo mode's manager).
func (c *Client) startNetwork(ctx context.Context, cfg config.Config, seeds []Seed) error {
	c.mode = c.opts.Mode
	prof, err := readProfile(c.dirs)
	if err != nil && c.mode != ModeLocal && c.mode != ModeSolo {
		return err
	}
	if c.mode == "" {
		c.mode = ModeSolo
		if prof != nil {
			c.mode = ModeNetwork
		}
	}
	nopts := c.opts.Network
	switch c.mode {
	case ModeLocal:
		return nil
	case ModeNetwork:
		if prof == nil {
			return errors.New("no network profile stored: run 'hivecrawl join PROFILE' first")
		}
		if len(seeds) > 0 {
			return errors.New("a client in a network takes its tasks from the manager: add seeds there ('hivecrawl seed add --manager URL' on the manager's machine)")
		}
	case ModeSolo:
		if c.solo, prof, err = newSolo(ctx, c.dirs, c.opts, time.Duration(cfg.Delay), c.gov.Parses(), c.log.With("part", "solo manager")); err != nil {
			return err
		}
		if len(seeds) > 0 {
			if err := addSoloSeeds(c.solo, seeds); err != nil {
				return err
			}
		}
		if len(nopts.Listen) == 0 {
			nopts.Listen = soloListen
		}
		nopts.NoDHT = true
	default:
		return fmt.Errorf("unknown client mode %q", c.mode)
	}
	nopts.allowLoopback, nopts.allowTestNets = c.opts.AllowLoopback, c.opts.AllowTestNets
	nopts.sockets = c.gov.Conns()
	if c.mode == ModeNetwork {
		// Checked at every start, not only by join: the file may have
		// been written by hand or by an older join.
		nopts.refused = floor.Bootstrap(prof.Bootstrap, netguard.Allowing(c.opts.AllowLoopback, c.opts.AllowTestNets))
	}
	nopts.version = c.opts.Version
	c.opts.Network = nopts
	c.net, err = newNetwork(ctx, prof, c.dirs.Data, cfg, nopts, c.log.With("part", "overlay"))
	return err
}

// Mode returns how the client takes part.
func (c *Client) Mode() Mode { return c.mode }

// Settings returns the live configuration store.
func (c *Client) Settings() *config.Store { return c.cfg }

// Logger is the client's logger: the caller's, with the event log
// (the log file and the dashboard's view) beside it.
func (c *Client) Logger() *slog.Logger { return c.log }

// Dirs returns the client's directories.
func (c *Client) Dirs() paths.Dirs { return c.dirs }

// Close closes the files. Serve calls it; it is safe to call again.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		var errs []error
		if c.net != nil {
			errs = append(errs, c.net.close())
		}
		if c.solo != nil {
			errs = append(errs, c.solo.Close())
		}
		if c.q != nil {
			errs = append(errs, c.q.Close())
		}
		if c.ledger != nil {
			errs = append(errs, c.ledger.Close())
		}
		errs = append(errs, c.events.Close())
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
