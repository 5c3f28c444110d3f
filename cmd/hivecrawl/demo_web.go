package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/hivecrawl/hivecrawl/swarm"
)

func init() {
	register(command{name: "fixture-web", summary: "serve the demo's synthetic web on 127.0.1.x (demo and tests)",
		args: "--info FILE [flags]", flags: flagsOf(fixtureWebFlags), run: runFixtureWeb})
}

func fixtureWebFlags(o *swarm.WebOptions) *flag.FlagSet {
	fs := newFlagSet("fixture-web")
	fs.IntVar(&o.Hosts, "hosts", swarm.DefaultHosts, "number of web `hosts` (at most 254)")
	fs.Uint64Var(&o.Seed, "seed", 1, "content and size `seed`")
	fs.IntVar(&o.Demo.MaxPages, "max-pages", 0, "pages of the largest host (default 400)")
	fs.IntVar(&o.Demo.MinPages, "min-pages", 0, "pages of the smallest hosts (default 8)")
	fs.StringVar(&o.Layout, "layout", "", "delay answers by the emulated RTT of the latency layout `FILE`")
	fs.StringVar(&o.IPBase, "ip-base", "", "serve host k at `PREFIX`k+1 (203.0.113.: the NAT lab) instead of 127.0.1.k+1")
	fs.IntVar(&o.PerAddr, "per-address", 1, "serve `N` hosts at each address, each on a port of its own (shared hosting)")
	fs.StringVar(&o.Info, "info", "", "write the control API's address to `FILE` (required)")
	return fs
}

// runFixtureWeb serves the demo web in its own process, so the swarm's
// web is a process of its own like every other part, and its CPU and
// memory are not counted against the demo's parent.
func runFixtureWeb(ctx context.Context, args []string) int {
	var o swarm.WebOptions
	fs := fixtureWebFlags(&o)
	if code, done := parseFlags(fs, args, os.Stdout, os.Stderr); done {
		return code
	}
	if o.Info == "" || fs.NArg() > 0 || o.Hosts < 1 || o.Hosts > swarm.MaxHosts || o.PerAddr < 1 {
		fmt.Fprintf(os.Stderr, "hivecrawl fixture-web: --info FILE is required, --hosts must be 1..%d, --per-address at least 1, and no arguments follow\n", swarm.MaxHosts)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := swarm.ServeWeb(ctx, o, log); err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl fixture-web:", err)
		return 1
	}
	return 0
}
