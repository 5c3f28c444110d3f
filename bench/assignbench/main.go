// Command assignbench runs paper 002 §5.3's assignment experiment
// (package assign) and prints consistent hashing (DHT), NC-CAN and
// NC-CAN+LBI side by side with their throughput ratios, for a few seeds;
// then, for the first seed, why NC-CAN and LBI land where they do: how
// hosts spread over crawlers before any churn, what the workload lets any
// assignment download, and an ablation that changes one thing at a time.
// `make bench` runs it (section assign).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/sim/assign"
)

func main() {
	var (
		seeds    = flag.String("seeds", "1,2,3", "comma-separated random seeds of the side-by-side runs; the first also drives the diagnosis")
		scale    = flag.Float64("scale", 1, "shrink the experiment to this share of its size, in (0, 1]")
		ablation = flag.Bool("ablation", true, "run the ablation (7 more scenarios, three schemes each)")
		loadJoin = flag.Bool("load-join", false, "side-by-side runs with load-aware joins (assign.Config.LoadJoin)")
		oneConn  = flag.Bool("one-connection", false, "side-by-side runs with one connection per host (assign.Config.OneConnection)")
		crawlers = flag.Int("crawlers", 0, "crawlers in the swarm instead of the paper's 140 (the same 1,600 hosts), to run the zone map at scale")
	)
	flag.Parse()
	cfg := assign.Paper()
	cfg.LoadJoin, cfg.OneConnection = *loadJoin, *oneConn
	if *crawlers > 0 {
		cfg.Crawlers = *crawlers
	}
	if err := run(cfg, *seeds, *scale, *ablation); err != nil {
		fmt.Fprintln(os.Stderr, "assignbench:", err)
		os.Exit(1)
	}
}

func run(cfg assign.Config, seedList string, scale float64, ablation bool) error {
	if !(scale > 0 && scale <= 1) {
		return fmt.Errorf("scale %v not in (0, 1]", scale)
	}
	var seeds []uint64
	for _, f := range strings.Split(seedList, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return fmt.Errorf("parse seeds %q: %w", seedList, err)
		}
		seeds = append(seeds, v)
	}
	if scale < 1 {
		cfg = cfg.Shrink(scale)
	}
	started := time.Now()
	fmt.Printf("paper 002 §5.3: %d hosts, %d crawlers, %d steps of %g s, CL %d, OT %d, TTL %d, PlanetLab RTTs, load-aware joins %v, one connection per host %v; targets (issue 17): NC-CAN ≥ +0 %%, NC-CAN+LBI ≥ +43 %% throughput over DHT\n\n",
		cfg.Hosts, cfg.Crawlers, cfg.Steps, cfg.StepSeconds, cfg.CL, cfg.OT, cfg.TTL, cfg.LoadJoin, cfg.OneConnection)
	fmt.Printf("%-5s %-10s %8s %8s %7s %9s %7s %7s %9s %9s %6s\n", "seed", "scheme", "Mb/s", "vs DHT", "RTT/2", "executing", "queued", "CV all", "completed", "cancelled", "lost")
	var first *assign.Scenario
	var firstRes []*assign.Result
	schemes := assign.Schemes
	for i, seed := range seeds {
		sc, res, err := assign.Compare(cfg, seed, schemes)
		if err != nil {
			return err
		}
		if i == 0 {
			first, firstRes = sc, res
		}
		for j, r := range res {
			fmt.Printf("%-5d %-10s %8.1f %+7.1f%% %7.1f %9.0f %7.0f %7.2f %9d %9d %6d\n", seed, schemes[j], r.MeanRate(), pct(r, res[0]),
				r.MeanHalfRTT(), r.MeanExecuting(), r.MeanQueued(), r.MeanCVAll(), r.Completed, r.Cancelled, r.Lost)
		}
	}
	fmt.Printf("\nseed %d, every crawler online and idle, before churn: how hosts spread over crawlers\n", seeds[0])
	fmt.Printf("%-36s %8s %6s %5s %5s %11s %11s %10s\n", "rule", "RTT ms", "CV", "max", "idle", "top 10% hosts", "top 10% pages", fmt.Sprintf("over CL %d", cfg.CL))
	for _, s := range first.Spreads() {
		fmt.Printf("%-36s %8.1f %6.2f %5d %5d %12.0f%% %12.0f%% %10d\n", s.Rule, s.MeanRTT, s.CV, s.Max, s.Idle, 100*s.TopHosts, 100*s.TopPages, s.OverCL)
	}
	fmt.Printf("\nseed %d: the most any assignment could download (Mb/s) at each scheme's measured RTT, against what it did\n", seeds[0])
	fmt.Printf("%-10s %7s %10s %14s %13s %9s %14s %18s\n", "scheme", "RTT ms", "all pages", "one conn/host", "one conn/piece", "achieved", "of its ceiling", "hosts over a life")
	for j, r := range firstRes {
		c := first.Ceilings(2 * r.MeanHalfRTT())[0]
		ceil := c.OneConnection
		if schemes[j] == assign.LBISplit {
			ceil = c.Split
		}
		fmt.Printf("%-10s %7.1f %10.1f %14.1f %13.1f %9.1f %13.0f%% %18d\n", schemes[j], c.RTT, c.All, c.OneConnection, c.Split, r.MeanRate(), 100*r.MeanRate()/ceil, c.TooBig)
	}
	if ablation {
		if err := ablate(cfg, seeds[0]); err != nil {
			return err
		}
	}
	fmt.Printf("\n(wall %v)\n", time.Since(started).Round(time.Second))
	return nil
}

func pct(r, base *assign.Result) float64 { return 100 * (r.MeanRate()/base.MeanRate() - 1) }

// ablate changes one thing at a time from base.
func ablate(base assign.Config, seed uint64) error {
	variants := []struct {
		name string
		set  func(*assign.Config)
	}{
		{"as above (box from crawlers, λ 5 %)", func(*assign.Config) {}},
		{"box from hosts' coordinates", func(c *assign.Config) { c.BoxFromHosts = true }},
		{"box trimmed λ 10 %", func(c *assign.Config) { c.Trim = 10 }},
		{"load-aware joins", func(c *assign.Config) { c.LoadJoin = true }},
		{"one connection per host", func(c *assign.Config) { c.OneConnection = true }},
		{"one connection + load-aware joins", func(c *assign.Config) { c.OneConnection, c.LoadJoin = true, true }},
		{"RTTs × 2", func(c *assign.Config) { c.RTTScale = 2 }},
		{"pages lognormal σ 1", func(c *assign.Config) { c.PagesSigma = 1 }},
	}
	schemes := []assign.Scheme{assign.DHT, assign.NCCAN, assign.LBI}
	fmt.Printf("\nseed %d: ablation, one change at a time\n", seed)
	fmt.Printf("%-40s %8s %8s %8s %12s %12s %15s\n", "variant", "DHT Mb/s", "NC-CAN", "LBI", "NC-CAN RTT/2", "NC-CAN CV", "skipped, 3 runs")
	for _, v := range variants {
		cfg := base
		v.set(&cfg)
		_, res, err := assign.Compare(cfg, seed, schemes)
		if err != nil {
			return fmt.Errorf("ablation %q: %w", v.name, err)
		}
		fmt.Printf("%-40s %8.1f %+7.1f%% %+7.1f%% %12.1f %12.2f %15d\n", v.name, res[0].MeanRate(), pct(res[1], res[0]), pct(res[2], res[0]),
			res[1].MeanHalfRTT(), res[1].MeanCVAll(), res[0].Skipped+res[1].Skipped+res[2].Skipped)
	}
	return nil
}
