package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/app/tray"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/ui/web"
)

func init() {
	register(command{name: "run", summary: "run the volunteer client (--headless: without a tray)",
		flags: flagsOf(runFlags), run: runClient})
}

// runOptions are run's flags.
type runOptions struct {
	headless, local, noLBI, allowLoopback, allowTestNets, verbose bool
	normalPriority                                                bool
	seeds, bind, emulateFile                                      string
	listen                                                        listFlag
	heartbeat, seedEvery, delay                                   time.Duration
	seedDepth, seedPages, threads                                 int
	home                                                          *string
	// adversary returns the dishonest volunteer the hidden flags of a
	// program built with the test kit ask for (adversary.go): nil.
	adversary func() (*app.Adversary, error)
}

func runFlags(o *runOptions) *flag.FlagSet {
	fs := newFlagSet("run")
	fs.BoolVar(&o.headless, "headless", false, "run without a tray icon (servers)")
	fs.StringVar(&o.seeds, "seeds", "", "add the seed URLs in `FILE` (one per line): to solo mode's manager, or, with --local, crawl them as tasks")
	fs.BoolVar(&o.local, "local", false, "join no network: crawl the --seeds file's tasks and keep results in the data directory")
	fs.StringVar(&o.bind, "bind", "", "test and demo only: the loopback `IP` this client listens on and crawls from")
	fs.StringVar(&o.emulateFile, "emulate", "", "test and demo only: add emulated latency from the layout `FILE` (p2p/emulate)")
	fs.DurationVar(&o.heartbeat, "heartbeat", 0, "overlay heartbeat `interval` (default 2s)")
	fs.BoolVar(&o.noLBI, "no-lbi", false, "for comparisons: keep every task at the owner of its point (no load balancing on insert, no sharing of waiting tasks)")
	fs.Var(&o.listen, "listen", "libp2p listen `MULTIADDR` (repeatable; default: every interface, port 4901; solo mode: 127.0.0.1)")
	fs.DurationVar(&o.seedEvery, "seed-interval", app.DefaultSeedInterval, "submit the seeds file's tasks again after this `interval`")
	fs.IntVar(&o.seedDepth, "seed-depth", app.DefaultSeedDepth, "link depth of seeds-file tasks")
	fs.IntVar(&o.seedPages, "seed-pages", app.DefaultSeedPages, "most pages per seeds-file task")
	fs.DurationVar(&o.delay, "delay", 0, "politeness wait between requests of seeds-file tasks (0: the crawler's default, 1s)")
	fs.IntVar(&o.threads, "threads", 0, "tasks crawled at once (default 3)")
	fs.BoolVar(&o.allowLoopback, "allow-loopback", false, "test only: allow crawling loopback addresses (local fixtures)")
	fs.BoolVar(&o.allowTestNets, "allow-test-nets", false, "test only: allow crawling the documentation ranges 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 and 2001:db8::/32 (fixtures in network namespaces), loopback still refused, and treat the IPv4 ones as public internet addresses in the overlay (the NAT lab)")
	fs.BoolVar(&o.normalPriority, "normal-priority", false, "test only: keep the normal CPU priority instead of the lowest (swarm tests, whose suite compiles beside them at normal priority)")
	fs.BoolVar(&o.verbose, "v", false, "log at debug level")
	o.home = paths.Flag(fs)
	hide(fs, "bind", "emulate", "heartbeat", "no-lbi", "allow-loopback", "allow-test-nets", "normal-priority")
	o.adversary = adversaryFlags(fs)
	return fs
}

func runClient(ctx context.Context, args []string) int {
	var o runOptions
	fs := runFlags(&o)
	if code, done := parseFlags(fs, args, os.Stdout, os.Stderr); done {
		return code
	}
	adv, err := o.adversary()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl run:", err)
		return 2
	}
	if unexpectedArgs(fs, os.Stderr) {
		return 2
	}
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if o.allowTestNets {
		// The NAT lab's internet is made of documentation addresses.
		host.TestNetsPublic()
	}
	nopts, err := networkOptions(o.listen, o.bind, o.emulateFile, o.heartbeat)
	nopts.NoLBI = o.noLBI
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl run:", err)
		return 2
	}
	mode := app.Mode("")
	if o.local {
		mode = app.ModeLocal
	}
	opts := app.Options{
		LowPriority: !o.normalPriority,
		// The process is the client's alone, whatever its priority.
		SoftMemoryLimit: true,
		Mode:            mode,
		Network:         nopts,
		SourceIP:        o.bind,
		Home:            *o.home,
		Seeds:           o.seeds,
		SeedTasks:       app.SeedTasks{Delay: o.delay, MaxDepth: o.seedDepth, MaxPages: o.seedPages, Interval: o.seedEvery},
		AllowLoopback:   o.allowLoopback,
		AllowTestNets:   o.allowTestNets,
		Adversary:       adv,
		Threads:         o.threads,
		Grace:           5 * time.Second,
		Version:         version,
		Logger:          log,
		Ready:           announce,
		Power:           governor.SystemPower(),
		Presence:        governor.SystemPresence(),
	}
	if !o.headless {
		if tray.HasDesktop() {
			opts.Ready = nil // the tray is the way in, not a printed link
			return runDesktop(ctx, opts)
		}
		fmt.Fprintln(os.Stderr, "hivecrawl run: no desktop session, so running without a tray (as with --headless)")
	}
	c, err := app.New(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl run:", listenProblem(err))
		return 1
	}
	if err := c.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl run:", err)
		return 1
	}
	return 0
}

// networkOptions builds the overlay options from run's flags.
func networkOptions(listen []string, bind, layoutFile string, heartbeat time.Duration) (app.NetworkOptions, error) {
	o := app.NetworkOptions{Listen: listen, Heartbeat: heartbeat}
	if bind != "" {
		ip := net.ParseIP(bind)
		if ip == nil || !ip.IsLoopback() || ip.To4() == nil {
			return o, fmt.Errorf("--bind %q: want an IPv4 loopback address such as 127.0.2.1", bind)
		}
		if len(o.Listen) == 0 {
			o.Listen = []string{"/ip4/" + bind + "/tcp/0"}
		}
	}
	if layoutFile == "" {
		return o, nil
	}
	if bind == "" {
		return o, errors.New("--emulate needs --bind: the layout places clients by their IP")
	}
	l, err := emulate.LoadLayout(layoutFile)
	if err != nil {
		return o, err
	}
	o.PeerExtra = func(remote string) time.Duration { return l.Delay(bind, remote) }
	o.HostExtra = func(host string) time.Duration { return l.Delay(bind, host) }
	return o, nil
}

// announce prints how the client takes part and where its dashboard is.
func announce(ctx context.Context, mode app.Mode, apiFile string) {
	switch mode {
	case app.ModeSolo:
		fmt.Println("Hivecrawl is running in solo mode: its own manager and a one-peer overlay on this machine.")
		fmt.Println("Add sites to crawl on the dashboard's Solo mode page or with 'hivecrawl channels add URL'.")
	case app.ModeNetwork:
		fmt.Println("Hivecrawl is running as a volunteer of the network in its stored profile.")
	case app.ModeLocal:
		fmt.Println("Hivecrawl is crawling the seeds file's sites locally, outside any network.")
	}
	// The API writes its info file as it starts serving.
	info, err := loopback.ReadInfo(apiFile)
	for i := 0; err != nil && i < 50 && ctx.Err() == nil; i++ {
		time.Sleep(100 * time.Millisecond)
		info, err = loopback.ReadInfo(apiFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl run: cannot tell the dashboard's address:", err)
		return
	}
	u, err := web.LoginURL(ctx, info, "")
	if err != nil {
		fmt.Printf("Dashboard: %s (run 'hivecrawl open' to sign in)\n", info.URL)
		return
	}
	fmt.Printf("Dashboard: %s\n(a one-time sign-in link, valid for two minutes; 'hivecrawl open' makes a new one)\n", u)
}
