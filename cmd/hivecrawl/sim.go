package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/sim/assign"
	"github.com/hivecrawl/hivecrawl/sim/strategies"
	"github.com/hivecrawl/hivecrawl/sim/webfountain"
)

func init() {
	names := make([]string, 0, len(simExperiments))
	for n := range simExperiments {
		names = append(names, n)
	}
	sort.Strings(names)
	register(command{name: "sim", summary: "run one of the papers' experiments in the simulator and write CSV, SVG and a summary",
		args: "EXPERIMENT [flags]", help: simHelp, words: names, flags: flagsOf(simFlags), run: runSim})
}

const simHelp = `Runs a deterministic discrete-time simulation with the project's own
scheduling code and writes CSV files, SVG charts and summary.md (our
figures beside the paper's) into the output folder.

experiments:
  recrawl-rec   paper 000 §4, 1,400 crawlers (the swarm cannot keep up)
  recrawl-ruc   paper 000 §4, 2,800 crawlers (it can)
  webfountain   paper 001 §5, the WebFountain planner
  assignment    paper 002 §5.3, assigning hosts to crawlers`

// simExperiment runs one experiment into dir and returns the summary's
// body.
type simExperiment func(seed uint64, scale float64, counting recrawl.Counting, dir string) (string, error)

var simExperiments = map[string]simExperiment{
	"recrawl-rec": func(seed uint64, scale float64, c recrawl.Counting, dir string) (string, error) {
		return simRecrawl(strategies.REC(), "fig4", seed, scale, c, dir)
	},
	"recrawl-ruc": func(seed uint64, scale float64, c recrawl.Counting, dir string) (string, error) {
		return simRecrawl(strategies.RUC(), "fig5", seed, scale, c, dir)
	},
	"assignment": func(seed uint64, scale float64, _ recrawl.Counting, dir string) (string, error) {
		cfg := assign.Paper()
		if scale < 1 {
			cfg = cfg.Shrink(scale)
		}
		x, err := assign.RunExperiment(cfg, seed)
		if err != nil {
			return "", err
		}
		return x.Write(dir)
	},
	"webfountain": func(_ uint64, scale float64, _ recrawl.Counting, dir string) (string, error) {
		r, err := webfountain.Run(max(8, int(255*scale)), max(3, int(math.Round(14*math.Sqrt(scale)))))
		if err != nil {
			return "", err
		}
		return r.Write(dir)
	},
}

func runSim(_ context.Context, args []string) int {
	return simMain(args, os.Stdout, os.Stderr)
}

// simOptions are sim's flags.
type simOptions struct {
	seed    uint64
	out     string
	scale   float64
	literal bool
}

func simFlags(o *simOptions) *flag.FlagSet {
	fs := newFlagSet("sim")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed; the same seed gives the same results")
	fs.StringVar(&o.out, "out", "", "output folder (default docs/results/EXPERIMENT)")
	fs.Float64Var(&o.scale, "scale", 1, "shrink the experiment to this share of its size (tests and quick looks)")
	fs.BoolVar(&o.literal, "count-all", false, "count tasks lost to crashes in the strategies' success rate (paper 000's literal reading)")
	return fs
}

func simMain(args []string, stdout, stderr io.Writer) int {
	var o simOptions
	fs := simFlags(&o)
	name, flags := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, flags = args[0], args[1:]
	}
	if code, done := parseFlags(fs, flags, stdout, stderr); done {
		return code
	}
	run, ok := simExperiments[name]
	if name == "" {
		fmt.Fprintln(stderr, "hivecrawl sim: name an experiment")
		fs.Usage()
		return 2
	}
	if !ok || fs.NArg() > 0 || !(o.scale > 0 && o.scale <= 1) {
		fmt.Fprintf(stderr, "hivecrawl sim: unknown experiment %q or bad arguments (scale must be in (0, 1])\n", name)
		fs.Usage()
		return 2
	}
	dir := o.out
	if dir == "" {
		dir = filepath.Join("docs", "results", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "hivecrawl sim: %v\n", err)
		return 1
	}
	counting := recrawl.CountLoadOnly
	if o.literal {
		counting = recrawl.CountAll
	}
	// The runs keep a few hundred MB of long-lived state and allocate
	// little per step; a laxer collector saves about a tenth of the CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	start := time.Now()
	body, err := run(o.seed, o.scale, counting, dir)
	if err != nil {
		fmt.Fprintf(stderr, "hivecrawl sim %s: %v\n", name, err)
		return 1
	}
	took := time.Since(start)
	// The summary depends on nothing but the experiment and the flags
	// that change its figures, so `make results` can tell a committed
	// result that no longer follows from the code: no wall time, no
	// output folder.
	cmdline := "hivecrawl sim " + name
	if o.literal {
		cmdline += " --count-all"
	}
	if o.seed != 1 {
		cmdline += fmt.Sprintf(" --seed %d", o.seed)
	}
	if o.scale != 1 {
		cmdline += fmt.Sprintf(" --scale %g", o.scale)
	}
	params := fmt.Sprintf("seed %d, scale %g", o.seed, o.scale)
	if strings.HasPrefix(name, "recrawl") {
		params += fmt.Sprintf(", success-rate counting %s", counting)
	}
	body += "\nWhy our figures differ from the paper's where they do is discussed in docs/results/README.md.\n"
	doc := fmt.Sprintf("# Simulation: %s\n\nProduced by `%s` (%s).\n\n%s", name, cmdline, params, body)
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte(doc), 0o644); err != nil {
		fmt.Fprintf(stderr, "hivecrawl sim: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: wrote %s in %.1f s\n", name, dir, took.Seconds())
	return 0
}

func simRecrawl(cfg strategies.Config, fig string, seed uint64, scale float64, counting recrawl.Counting, dir string) (string, error) {
	if scale < 1 {
		cfg = cfg.Shrink(scale)
	}
	cfg.Counting = counting
	x, err := strategies.RunExperiment(cfg, strategies.Kinds, seed)
	if err != nil {
		return "", err
	}
	tables, err := x.Write(dir, fig)
	if err != nil {
		return "", err
	}
	return recrawlIntro + tables, nil
}

const recrawlIntro = `Paper 000 §4 with the strategies of sched/recrawl (FIXED, IIR, ICR and
the load controller of design.md §9), driven through their Strategy interface.
Crawlers are placed by Vivaldi coordinates (p2p/coord) over the PlanetLab
matrix enlarged by paper 000's replication, hosts by the host solver; tasks go
to the CAN owner of the host's point (p2p/can) with load balancing on insert
(TTL 3, threshold 10 tasks = 5 threads + queue 5). See sim/strategies's package
documentation for the whole model.

Readings of design.md §9 used here: group shares 3.4/24.7/44.7/23.9/3.4 %;
bandwidth 1.5·N(1, 0.5) rounded to 512 Kb/s, 1 Mb/s or 2 Mb/s; update quality
q = (updates / time) × change interval, weights 2^rank; and the success rate
that drives reassignment counts only load-dependent failures (tasks expired
in queues or refused), not tasks lost to crashes, unless --count-all is given.
Page counts are lognormal (σ = 1) with the paper's mean of 15,187,511 / 1,738
pages per host, 10 KB a page. Table 4 of the paper cannot follow from its
Table 3 (design.md §9): with Table 3's RUC intervals, quality is at most ≈ 1.12
unweighted and ≈ 5.3 weighted, so compare directions, not values, there.

`
