// Command swarmbench is the swarm benchmark of `make bench`: the same
// swarm of processes on loopback (a manager, N clients, a synthetic web
// with emulated latency), run once per assignment — the coordinate CAN
// with load balancing (on insert, and owners sharing waiting tasks with
// idle neighbours), consistent hashing (paper 004, UbiCrawler: no
// balancing), and the coordinate CAN without balancing — one after the
// other in one run; then each client's idle footprint with the peers
// connected. -variants hash+share runs hashing with sharing on, to show
// what sharing alone gives. It
// prints one table, the ratios and where the coordinate variants placed
// peers and hosts.
//
// The manager gets the web's hosts only -settle (2 minutes) after every
// client has joined, as in a network that has run for a while: with
// coordinates, each client has by then had the 100 Vivaldi samples and
// the turn it waits for before moving to its mapped coordinate
// (p2p/node/drift.go). The crawl time starts then.
//
// Caveats: Linux only (it reads /proc); pages/s depends on the machine and
// on what else runs; the figures are what was measured in this run.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/swarm"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// cpuProfile, idleWait, runVariants, politeWait, overload, perAddr and
// keepDir are the -cpuprofile, -idle-wait, -variants, -delay, -overload,
// -per-address and -keep flags.
var (
	cpuProfile  string
	idleWait    time.Duration
	runVariants string
	politeWait  time.Duration
	overload    int
	perAddr     int
	keepDir     string
	// boundsNote is what placement could gain at best (bounds), from the
	// first variant's swarm.
	boundsNote string
)

type variant struct {
	name       string
	manager    []string
	client     func(*config.Config)
	clientArgs []string
}

func main() {
	peers := flag.Int("peers", 12, "clients")
	hosts := flag.Int("hosts", 60, "web hosts")
	dur := flag.Duration("duration", 3*time.Minute, "longest crawl time per variant (a variant ends when the whole web was served once)")
	idle := flag.Duration("idle", 30*time.Second, "idle footprint measuring time")
	maxPages := flag.Int("max-pages", 80, "pages of the largest host")
	bin := flag.String("bin", "", "hivecrawl binary (default: build it)")
	settle := flag.Duration("settle", 2*time.Minute, "wait after every client joined before the hosts are submitted (60 heartbeat intervals: Vivaldi's samples and each peer's turn for its first move)")
	verbose := flag.Bool("v", false, "log progress")
	only := flag.String("only", "", `run one part only: "idle" (the idle footprint) or "presets" (each preset's footprint, not run otherwise); empty runs the rest`)
	flag.DurationVar(&politeWait, "delay", 200*time.Millisecond, "politeness wait between requests to one host, the operator's (manager --delay) and the clients'")
	flag.StringVar(&keepDir, "keep", "", "keep every process's files and debug-level log under `DIR` instead of a temporary directory")
	flag.IntVar(&perAddr, "per-address", 1, "web hosts served at each address (shared hosting); the manager's caps per address bind when above --per-ip (2)")
	flag.IntVar(&overload, "overload", 0, "the clients' overload threshold OT in can+lbi (0: their default, threads + queue length)")
	flag.StringVar(&runVariants, "variants", "can+lbi,hash,can-lbi", "the variants to run, comma-separated, in this order (the ratios need all three)")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write the first client's CPU profile over the idle measuring time to this file")
	flag.DurationVar(&idleWait, "idle-wait", governor.ReleaseAfter+15*time.Second, "wait after every client joined before the idle footprint is measured (default: past the clients' first quiet spell, governor.ReleaseAfter)")
	flag.Parse()
	if *only != "" && *only != "idle" && *only != "presets" {
		fmt.Fprintf(os.Stderr, "swarmbench: -only %q: want \"idle\", \"presets\" or nothing\n", *only)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *bin, *peers, *hosts, *dur, *settle, *idle, *maxPages, *only, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "swarmbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bin string, peers, hosts int, dur, settle, idle time.Duration, maxPages int, only string, verbose bool) error {
	tmp := keepDir
	if tmp == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "swarmbench-"); err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
	} else if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	if bin == "" {
		bin = filepath.Join(tmp, "hivecrawl")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/hivecrawl")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	log := slog.New(slog.DiscardHandler)
	if verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	switch only {
	case "idle":
		return idleFootprint(ctx, bin, tmp, peers, idle, log)
	case "presets":
		return presetFootprints(ctx, bin, tmp, peers, hosts, maxPages, dur, idle, log)
	}
	// The politeness wait is the operator's (the manager's --delay, the
	// least every crawler keeps) and the clients' own, both politeWait.
	wait := politeWait.String()
	delay := func(c *config.Config) { c.Delay = config.Duration(politeWait) }
	variants := []variant{
		{"can+lbi", []string{"--delay", wait, "--coordinates", "--assignment", "can"}, func(c *config.Config) {
			delay(c)
			c.Overload = overload
		}, nil},
		// Consistent hashing as UbiCrawler does it: a host's tasks stay
		// with its peer; the clients neither balance nor share.
		{"hash", []string{"--delay", wait, "--coordinates=false", "--assignment", "hash"}, delay, []string{"--no-lbi"}},
		{"can-lbi", []string{"--delay", wait, "--coordinates", "--assignment", "can"}, func(c *config.Config) {
			delay(c)
			c.QueueLength, c.Overload = 1000, 1000 // a queue never full refuses nothing
		}, []string{"--no-lbi"}},
		// can+lbi without the manager's limits per address and per
		// registrable domain (issue 43): what those limits cost.
		{"can+lbi-nocaps", []string{"--delay", wait, "--coordinates", "--assignment", "can", "--per-ip", "0", "--per-domain", "0", "--ip-wait", "-1ns"}, func(c *config.Config) {
			delay(c)
			c.Overload = overload
		}, nil},
		// Hashing with the clients sharing waiting tasks with idle
		// neighbours, as can+lbi's do: not a baseline, but it shows what
		// sharing alone gives (run it with -variants).
		{"hash+share", []string{"--delay", wait, "--coordinates=false", "--assignment", "hash"}, delay, nil},
	}
	var chosen []variant
	for _, name := range strings.Split(runVariants, ",") {
		i := slices.IndexFunc(variants, func(v variant) bool { return v.name == name })
		if i < 0 {
			return fmt.Errorf("-variants: no variant %q (can+lbi, hash, can-lbi, can+lbi-nocaps, hash+share)", name)
		}
		chosen = append(chosen, variants[i])
	}
	variants = chosen
	fmt.Printf("swarm: %d clients, %d hosts (largest %d pages) at %d addresses, until the web is served once or %v, PlanetLab latency\n", peers, hosts, maxPages, (hosts+perAddr-1)/perAddr, dur)
	fmt.Printf("%-14s %9s %8s %9s %12s %9s %9s %8s\n", "variant", "pages", "seconds", "pages/s", "mean RTT ms", "crawls ms", "tasks CV", "peers≥1")
	results := map[string]swarm.Summary{}
	var notes []string
	for i, v := range variants {
		dir := filepath.Join(tmp, strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
		cfg := swarm.Config{
			Bin: bin, Dir: dir, Peers: peers, Hosts: hosts, Seed: 11, DeferSeeds: true,
			Web: fixture.DemoOptions{MaxPages: maxPages}, PerAddr: perAddr, ManagerArgs: v.manager, Client: v.client, ClientArgs: v.clientArgs, Logger: log,
		}
		if keepDir != "" {
			cfg.ManagerArgs = append(slices.Clip(cfg.ManagerArgs), "-v")
			cfg.ClientArgs = append(slices.Clip(cfg.ClientArgs), "-v")
		}
		sum, note, err := measure(ctx, cfg, dur, settle, log)
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		notes = append(notes, v.name+":"+note)
		results[v.name] = sum
		working := 0
		for _, n := range sum.TasksPerPeer {
			if n > 0 {
				working++
			}
		}
		fmt.Printf("%-14s %9d %8.1f %9.2f %12.1f %9.1f %9.3f %8d\n", v.name, sum.PagesServed, sum.Seconds, sum.PagesPerSecond, sum.MeanRTTms, sum.MeanCrawlRTTms, sum.TasksCV, working)
	}
	if c, ok := results["can+lbi-nocaps"]; ok {
		if a, ok := results["can+lbi"]; ok {
			fmt.Printf("ratios can+lbi / can+lbi-nocaps: pages/s %.2f, mean RTT %.2f\n", ratio(a.PagesPerSecond, c.PagesPerSecond), ratio(a.MeanRTTms, c.MeanRTTms))
		}
	}
	a, aok := results["can+lbi"]
	h, hok := results["hash"]
	n, nok := results["can-lbi"]
	if aok && hok {
		fmt.Printf("ratios can+lbi / hash: pages/s %.2f, mean RTT %.2f (crawls alone %.2f), tasks CV %s\n", ratio(a.PagesPerSecond, h.PagesPerSecond), ratio(a.MeanRTTms, h.MeanRTTms), ratio(a.MeanCrawlRTTms, h.MeanCrawlRTTms), ratioS(a.TasksCV, h.TasksCV))
	}
	if aok && nok {
		fmt.Printf("ratios can+lbi / can-lbi: pages/s %.2f, mean RTT %.2f, tasks CV %s\n", ratio(a.PagesPerSecond, n.PagesPerSecond), ratio(a.MeanRTTms, n.MeanRTTms), ratioS(a.TasksCV, n.TasksCV))
	}
	for _, n := range notes {
		fmt.Println(n)
	}
	fmt.Println(boundsNote)
	if !aok || !hok || !nok {
		return nil // a partial run is for looking closer, not the footprint
	}
	return idleFootprint(ctx, bin, tmp, peers, idle, log)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func ratioS(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}
