// Command evolvebench compares recrawl strategies on an evolving synthetic
// site (package evolve): uniform recrawl with and without conditional
// GETs, paper 003's adaptive per-page frequencies with its selective
// incremental rule, and paper 001's planner, at one budget of known pages
// per round. `make bench` runs it (section recrawl).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/hivecrawl/hivecrawl/testkit/evolve"
)

func main() {
	var (
		sections = flag.Int("sections", 10, "section pages under the home page")
		per      = flag.Int("per-section", 19, "articles per section")
		rounds   = flag.Int("rounds", 168, "recrawl rounds")
		interval = flag.Duration("interval", time.Hour, "virtual time between rounds")
		share    = flag.Float64("budget", 0.5, "known pages a round may revisit, as a share of the site")
		never    = flag.Float64("never", 0.2, "share of pages that never change")
		seed     = flag.Uint64("seed", 1, "random seed of the site")
		asJSON   = flag.Bool("json", false, "print the reports as JSON")
	)
	flag.Parse()
	dir, err := os.MkdirTemp("", "evolvebench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "evolvebench:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	pages := 1 + *sections*(1+*per)
	budget := max(1, int(*share*float64(pages)))
	cfg := evolve.Config{
		Site: evolve.SiteConfig{Sections: *sections, PerSection: *per, Never: *never, MinRate: 1.0 / 2000, MaxRate: 0.5,
			Horizon: time.Duration(*rounds+2) * *interval, PageBytes: 6000, Seed: *seed},
		Rounds: *rounds, Interval: *interval, Samples: 12, Dir: dir,
	}
	started := time.Now()
	reps, err := evolve.Run(context.Background(), cfg, evolve.Strategies(budget))
	if err != nil {
		fmt.Fprintln(os.Stderr, "evolvebench:", err)
		os.Exit(1)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(reps)
		return
	}
	fmt.Printf("site: %d pages (%.0f %% never change, others 1/2000 to 1/2 changes an hour), %d rounds %v apart, budget %d known pages a round (wall %v)\n",
		pages, 100**never, *rounds, *interval, budget, time.Since(started).Round(time.Second))
	fmt.Printf("%-24s %9s %9s %9s %12s %9s %10s %10s\n", "strategy", "requests", "downloads", "304s", "bytes", "freshness", "req/unif.", "bytes/unc.")
	base, unc := reps[1], reps[0]
	for _, r := range reps {
		fmt.Printf("%-24s %9d %9d %9d %12d %9.3f %10.2f %10.2f\n", r.Strategy, r.Requests, r.Downloads, r.NotModified, r.Bytes,
			r.Freshness, float64(r.Requests)/float64(base.Requests), float64(r.Bytes)/float64(unc.Bytes))
	}
}
