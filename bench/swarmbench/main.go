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
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
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
	"github.com/hivecrawl/hivecrawl/ui/localapi"
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
	fmt.Printf("%-14s %9s %8s %9s %12s %9s %8s\n", "variant", "pages", "seconds", "pages/s", "mean RTT ms", "tasks CV", "peers≥1")
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
		fmt.Printf("%-14s %9d %8.1f %9.2f %12.1f %9.3f %8d\n", v.name, sum.PagesServed, sum.Seconds, sum.PagesPerSecond, sum.MeanRTTms, sum.TasksCV, working)
	}
	if c, ok := results["can+lbi-nocaps"]; ok {
		if a, ok := results["can+lbi"]; ok {
			fmt.Printf("ratios can+lbi / can+lbi-nocaps: pages/s %.2f, mean RTT %.2f\n", ratio(a.PagesPerSecond, c.PagesPerSecond), ratio(a.MeanRTTms, c.MeanRTTms))
		}
	}
	a, aok := results["can+lbi"]
	h, hok := results["hash"]
	n, nok := results["can-lbi"]
	if aok && hok && nok {
		fmt.Printf("ratios can+lbi / hash: pages/s %.2f, mean RTT %.2f, tasks CV %s\n", ratio(a.PagesPerSecond, h.PagesPerSecond), ratio(a.MeanRTTms, h.MeanRTTms), ratioS(a.TasksCV, h.TasksCV))
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

// idleFootprint starts a fourth swarm with one small host under tmp and
// measures its clients' idle footprint.
func idleFootprint(ctx context.Context, bin, tmp string, peers int, idle time.Duration, log *slog.Logger) error {
	dir := filepath.Join(tmp, "idle")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	return footprint(ctx, swarm.Config{Bin: bin, Dir: dir, Peers: peers, Hosts: 1, Seed: 11, OwnBinaries: true,
		Web: fixture.DemoOptions{MaxPages: 8}, ManagerArgs: []string{"--coordinates"}, Logger: log}, idle)
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

// measure runs one swarm until the web is served once or for dur, from
// when the manager gets the hosts: settle after every client is in the
// overlay. The note says how the coordinate variants placed peers and
// hosts.
func measure(ctx context.Context, cfg swarm.Config, dur, settle time.Duration, log *slog.Logger) (swarm.Summary, string, error) {
	var sum swarm.Summary
	s, err := swarm.Start(ctx, cfg)
	if err != nil {
		return sum, "", err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s.Close(cctx)
	}()
	if err := members(ctx, s); err != nil {
		return sum, "", err
	}
	st, err := s.Manager.Status(ctx)
	if err != nil {
		return sum, "", err
	}
	coords := swarm.PlacementOf(st.Swarm) == "coordinates"
	settled := time.After(settle)
	every := time.NewTicker(10 * time.Second)
	defer every.Stop()
	for waiting := true; waiting; {
		select {
		case <-ctx.Done():
			return sum, "", ctx.Err()
		case <-settled:
			waiting = false
		case <-every.C:
			if !coords {
				continue
			}
			if pl, err := s.Placement(ctx); err == nil {
				log.Info("Placement", "held", pl.Held, "clients", pl.Clients, "moves", pl.Moves, "drifts", pl.Drifts, "trained", pl.Trained, "outside", fmt.Sprintf("%.2f", pl.Outside))
			}
		}
	}
	var note string
	var drifts int64 // when the hosts were added
	if coords {
		pl, err := s.Placement(ctx)
		if err != nil {
			return sum, "", err
		}
		log.Info("Placement when the hosts were added", "held", pl.Held, "clients", pl.Clients, "outside", fmt.Sprintf("%.2f", pl.Outside))
		note = fmt.Sprintf(" %d of %d clients held the point their coordinate maps to when the hosts were added (%d on trained bounds, %d moves in all, %d of them drift rejoins after a client's first)", pl.Held, pl.Clients, pl.Trained, pl.Moves, pl.Drifts)
		drifts = pl.Drifts
	}
	if err := s.AddSeeds(ctx); err != nil {
		return sum, "", err
	}
	if boundsNote == "" {
		boundsNote = bounds(s, politeWait) // the same web and layout in every variant
	}
	// The run ends when the web has served as many pages as it has (the
	// whole web crawled once) or after dur, whichever comes first, so
	// pages/s is not capped by the size of the web.
	var total int64
	for _, h := range s.Web.Hosts {
		total += int64(h.Pages)
	}
	tl := newTimeline(s.Web.Hosts)
	start := time.Now()
	deadline := time.After(dur)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return sum, "", ctx.Err()
		case <-deadline:
			done = true
		case <-tick.C:
			web, err := s.Web.Stats(ctx, s.HTTP())
			if err != nil {
				return sum, "", err
			}
			var served int64
			for _, h := range web {
				served += h.Pages
			}
			tl.note(time.Since(start), served, total, web)
			done = served >= total
		}
	}
	note += tl.String()
	byIP, err := s.Web.MaxInFlightByIP(ctx, s.HTTP())
	if err != nil {
		return sum, "", err
	}
	note += fmt.Sprintf("; at most %d requests at once on one address", slices.Max(append(slices.Collect(maps.Values(byIP)), 0)))
	if err := s.Observe(ctx, &sum, time.Since(start)); err != nil {
		return sum, "", err
	}
	hp, err := s.HostPlacement(ctx)
	if err != nil {
		return sum, "", err
	}
	if coords {
		pl, err := s.Placement(ctx)
		if err != nil {
			return sum, "", err
		}
		note += fmt.Sprintf("; %d drift rejoins during the crawl, %d of %d clients holding their point at its end", pl.Drifts-drifts, pl.Held, pl.Clients)
		note += fmt.Sprintf("; %d of %d hosts located from measurements; mean CAN distance from a host to its crawler's mapped coordinate %.3f, to all clients' %.3f;",
			hp.Located, hp.Hosts, hp.OwnerDist, hp.PeerDist)
	}
	note += fmt.Sprintf(" mean emulated RTT from a host to the client that queued its latest task %.1f ms, to all clients %.1f ms", hp.OwnerRTT, hp.ClientRTT)
	return sum, note, nil
}

func members(ctx context.Context, s *swarm.Swarm) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		all := true
		for _, c := range s.Clients {
			st, err := c.Status(ctx)
			if err != nil || st.Overlay == nil || !st.Overlay.Member {
				all = false
				break
			}
		}
		if all {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("clients did not all join the overlay: %w", ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// footprint measures each client's resident memory and CPU share while the
// swarm is idle (its one small host crawled), from /proc.
func footprint(ctx context.Context, cfg swarm.Config, idle time.Duration) error {
	s, err := swarm.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s.Close(cctx)
	}()
	if err := members(ctx, s); err != nil {
		return err
	}
	// The one host crawled, the overlay quiet, and each client past its
	// first quiet spell (governor.ReleaseAfter), as a client idle for
	// long is; with a longer -idle-wait, also past its coordinate's first
	// move.
	time.Sleep(idleWait)
	before := make([]float64, len(s.Clients))
	for i, c := range s.Clients {
		before[i] = cpuSeconds(c.PID())
	}
	start := time.Now()
	profiled := make(chan error, 1)
	if cpuProfile != "" {
		go func() { profiled <- saveProfile(ctx, s.Clients[0], idle, cpuProfile) }()
	} else {
		profiled <- nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(idle):
	}
	if err := <-profiled; err != nil {
		return err
	}
	el := time.Since(start).Seconds()
	var sumRSS, maxCPU, sumCPU, sumAnon, sumFile float64
	var (
		largest    *swarm.Client // the client with the most resident memory
		largestMem []float64     // its VmRSS, RssAnon, RssFile in MB
	)
	perClient := cfg.Logger.Enabled(ctx, slog.LevelInfo) // -v
	cpus := make([]float64, len(s.Clients))
	for i, c := range s.Clients {
		cpu := (cpuSeconds(c.PID()) - before[i]) / el * 100
		cpus[i] = cpu
		mem := statusMB(c.PID(), "VmRSS", "RssAnon", "RssFile")
		if largest == nil || mem[0] > largestMem[0] {
			largest, largestMem = c, mem
		}
		if perClient {
			if st, err := c.Status(ctx); err == nil && st.Overlay != nil {
				cfg.Logger.Info("Idle client", "client", c.Name, "rss", mem[0], "anon", mem[1], "file", mem[2], "cpu", cpu,
					"pages", st.Pages.Total, "peers", st.Overlay.Peers, "neighbours", len(st.Overlay.Neighbours), "zones", len(st.Overlay.Zones))
			}
		}
		sumRSS += mem[0]
		maxCPU, sumCPU = max(maxCPU, cpu), sumCPU+cpu
		sumAnon += mem[1]
		sumFile += mem[2]
	}
	n := float64(len(s.Clients))
	slices.Sort(cpus)
	fmt.Printf("idle client, %d clients in the swarm, %.0f s after joining, over %.0f s: RSS mean %.1f MB (anonymous %.1f, executable %.1f) max %.1f MB (goal ≤ 40); CPU mean %.2f %% median %.2f %% max %.2f %% of a core (goal ≤ 0.5)\n",
		len(s.Clients), idleWait.Seconds(), el, sumRSS/n, sumAnon/n, sumFile/n, largestMem[0], sumCPU/n, cpus[len(cpus)/2], maxCPU)
	fmt.Printf("largest idle client %s: RSS %.1f MB (anonymous %.1f, executable %.1f)\n", largest.Name, largestMem[0], largestMem[1], largestMem[2])
	return nil
}

// cpuSeconds returns a process's user plus system CPU time.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// Fields after the command: state is f[0]; utime f[11], stime f[12].
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100 // USER_HZ is 100 on Linux
}

// statusMB returns the given memory fields of a process's
// /proc/PID/status in MB, in their order (0 for one not there).
func statusMB(pid int, fields ...string) []float64 {
	out := make([]float64, len(fields))
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if i := slices.Index(fields, name); ok && i >= 0 {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				out[i] = kb / 1024
			}
		}
	}
	return out
}

// saveProfile writes client c's CPU profile over d to path, from its local
// API's /debug/pprof/profile.
func saveProfile(ctx context.Context, c *swarm.Client, d time.Duration, path string) error {
	u := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", c.API.URL, int(d.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set(localapi.TokenHeader, c.API.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("CPU profile of %s: %w", c.Name, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("CPU profile of %s: %s", c.Name, res.Status)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("CPU profile of %s: %w", c.Name, err)
	}
	return os.WriteFile(path, b, 0o644)
}

// pollEvery is how often the crawl's progress is read from the web.
const pollEvery = 250 * time.Millisecond

// timeline follows a crawl from the web's counters: when each host was
// first and last served a page, and when the web as a whole had served a
// half and nine tenths of its pages. It tells a crawl held up by a few
// hosts (a long tail) from one slow all along.
type timeline struct {
	pages        map[string]int64 // host → its page count
	first, last  map[string]time.Duration
	served       map[string]int64 // host → pages served, at the last poll
	half, ninety time.Duration
	// ago holds the per-host counts of the polls within the last second,
	// oldest first (the last is served); busy sums, over the polls, the
	// hosts served a page in the second before each (each host is crawled
	// over one connection, so these are the connections at work), and
	// polls counts them.
	ago   []map[string]int64
	busy  float64
	polls int
}

func newTimeline(hosts []fixture.HostInfo) *timeline {
	t := &timeline{pages: map[string]int64{}, first: map[string]time.Duration{}, last: map[string]time.Duration{}}
	for _, h := range hosts {
		t.pages[h.Name] = int64(h.Pages)
	}
	return t
}

// note records the counters polled at elapsed time at.
func (t *timeline) note(at time.Duration, served, total int64, web map[string]fixture.Stats) {
	now := make(map[string]int64, len(web))
	for name, st := range web {
		now[name] = st.Pages
	}
	if len(t.ago) > 0 && at >= time.Second {
		for name, n := range now {
			if n > t.ago[0][name] {
				t.busy++
			}
		}
		t.polls++
	}
	t.served = now
	if t.ago = append(t.ago, now); len(t.ago) > int(time.Second/pollEvery) {
		t.ago = t.ago[1:]
	}
	if t.half == 0 && 2*served >= total {
		t.half = at
	}
	if t.ninety == 0 && 10*served >= 9*total {
		t.ninety = at
	}
	for name, st := range web {
		if _, ok := t.first[name]; !ok && st.Pages > 0 {
			t.first[name] = at
		}
		if _, ok := t.last[name]; !ok && st.Pages >= t.pages[name] {
			t.last[name] = at
		}
	}
}

func (t *timeline) String() string {
	var lastHost string
	var lastAt, startedBy time.Duration
	for name, at := range t.last {
		if at > lastAt {
			lastHost, lastAt = name, at
		}
	}
	for _, at := range t.first {
		startedBy = max(startedBy, at)
	}
	s := fmt.Sprintf(" half the pages served at %.0f s, 90 %% at %.0f s; every host begun by %.0f s", t.half.Seconds(), t.ninety.Seconds(), startedBy.Seconds())
	if t.polls > 0 {
		s += fmt.Sprintf("; %.1f hosts served a page in each second, on average", t.busy/float64(t.polls))
	}
	if lastHost != "" {
		took := lastAt - t.first[lastHost]
		s += fmt.Sprintf("; the last host done, %s (%d pages), begun at %.0f s, done at %.0f s (%.2f s a page)",
			lastHost, t.pages[lastHost], t.first[lastHost].Seconds(), lastAt.Seconds(), took.Seconds()/float64(max(t.pages[lastHost], 1)))
	}
	var short, shortPages, extra int64
	for name, n := range t.pages {
		if got := t.served[name]; got < n {
			short++
			shortPages += n - got
		} else {
			extra += got - n
		}
	}
	s += fmt.Sprintf("; at the end %d hosts not served whole (%d pages short), %d pages served again", short, shortPages, extra)
	return s + ";"
}

// bounds says what placement could gain at best on this web and latency
// layout, from every host's page count and its RTT to every client, with
// each client crawling config.DefaultThreads hosts at once and a page
// taking the politeness wait plus one RTT (nothing else counted):
//   - the RTT per page with every host crawled by its nearest client, and
//     by a client drawn at random (what hashing gives on average);
//   - a crawl of the whole web once, as this benchmark runs it: the time
//     an omniscient schedule takes (largest host first, each to the
//     connection that would finish it soonest, knowing every size and
//     RTT), against hosts on clients drawn at random (each client taking
//     its hosts largest first; mean of 200 draws);
//   - a swarm with every host always due (the paper's long-run
//     throughput): pages/s with the best matching of hosts to the
//     clients' connections (greedy by RTT, one connection per host),
//     against connections on random hosts.
//
// An assignment that knows neither sizes nor RTTs, as the overlay does
// not, can only approach these ratios.
func bounds(s *swarm.Swarm, wait time.Duration) string {
	w := float64(wait) / float64(time.Millisecond)
	cl := config.DefaultThreads
	type host struct {
		pages int
		rtt   []float64 // ms to each client
	}
	var hosts []host
	for _, h := range s.Web.Hosts {
		ip, _, err := net.SplitHostPort(h.Addr)
		if err != nil {
			return ""
		}
		hh := host{pages: h.Pages}
		for _, c := range s.Clients {
			d, ok := s.Layout.RTT(ip, c.IP)
			if !ok {
				return ""
			}
			hh.rtt = append(hh.rtt, float64(d)/float64(time.Millisecond))
		}
		hosts = append(hosts, hh)
	}
	peers := len(s.Clients)
	if len(hosts) == 0 || peers == 0 {
		return ""
	}
	slices.SortFunc(hosts, func(a, b host) int { return b.pages - a.pages })
	secs := func(h host, c int) float64 { return float64(h.pages) * (w + h.rtt[c]) / 1000 }

	var pages, nearSum, allSum float64
	for _, h := range hosts {
		p := float64(h.pages)
		pages += p
		nearSum += p * slices.Min(h.rtt)
		var all float64
		for _, r := range h.rtt {
			all += r
		}
		allSum += p * all / float64(peers)
	}

	free := make([]float64, peers*cl)
	var best float64
	for _, h := range hosts {
		at, fin := 0, math.Inf(1)
		for k := range free {
			if f := free[k] + secs(h, k/cl); f < fin {
				at, fin = k, f
			}
		}
		free[at] = fin
		best = max(best, fin)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const draws = 200
	var random float64
	for range draws {
		clear(free)
		var end float64
		for _, h := range hosts {
			c := r.IntN(peers)
			k := c * cl
			for j := 1; j < cl; j++ {
				if free[c*cl+j] < free[k] {
					k = c*cl + j
				}
			}
			free[k] += secs(h, c)
			end = max(end, free[k])
		}
		random += end / draws
	}

	type pair struct {
		host, client int
		rtt          float64
	}
	var pairs []pair
	var anyRate float64
	for i, h := range hosts {
		for c, rt := range h.rtt {
			pairs = append(pairs, pair{i, c, rt})
			anyRate += 1000 / (w + rt)
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int { return cmp.Compare(a.rtt, b.rtt) })
	busy, used := make([]int, peers), make([]bool, len(hosts))
	var rate float64
	conns := 0
	for _, p := range pairs {
		if used[p.host] || busy[p.client] == cl {
			continue
		}
		used[p.host], busy[p.client] = true, busy[p.client]+1
		rate += 1000 / (w + p.rtt)
		conns++
	}
	anyRate = anyRate / float64(len(pairs)) * float64(conns)
	return fmt.Sprintf("bounds on this web and layout (%d connections a client, %v wait): RTT per page %.1f ms from each host's nearest client, %.1f ms at random; the web crawled once in %.1f s by an omniscient schedule against %.1f s on random clients (ratio %.2f); with every host always due, %.1f pages/s from the best matching against %.1f at random (ratio %.2f)",
		cl, wait, nearSum/pages, allSum/pages, best, random, random/best, rate, anyRate, rate/anyRate)
}
