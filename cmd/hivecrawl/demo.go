package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/swarm"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

func init() {
	register(command{name: "demo", summary: "run a whole swarm on this machine: manager, volunteers and a synthetic web",
		flags: flagsOf(demoFlagSet), run: runDemo})
}

// demoFlags are demo's command line.
type demoFlags struct {
	peers, hosts int
	cheaters     int
	cheatModes   string
	prior        time.Duration
	latency      string
	churn        bool
	hijackers    int
	churnEvery   time.Duration
	duration     time.Duration
	seed         uint64
	dir          string
	maxPages     int
	verbose      bool
	delay        time.Duration
	// nat runs the swarm in a NAT lab with natPublic volunteers on its
	// internet and natSymmetric of the others behind symmetric NATs.
	nat                     bool
	natPublic, natSymmetric int
}

func demoFlagSet(f *demoFlags) *flag.FlagSet {
	fs := newFlagSet("demo")
	fs.IntVar(&f.peers, "peers", swarm.DefaultPeers, "volunteer clients (at most 254)")
	fs.IntVar(&f.hosts, "hosts", swarm.DefaultHosts, "web hosts of the synthetic web (at most 254)")
	fs.StringVar(&f.latency, "latency", "", "latency matrix `FILE` in milliseconds, or planetlab or seattle (default: the PlanetLab matrix)")
	fs.IntVar(&f.cheaters, "cheaters", 0, "how many of the volunteers cheat, in turn in each of --cheat-modes")
	fs.StringVar(&f.cheatModes, "cheat-modes", "", "the cheaters' `MODES`, comma-separated, handed out in turn (default: every mode, in this order): invent (invented pages), alter (altered text), inflate (inflated counts), replay (replayed results), foreign (results for tasks they do not hold), partial (one page in ten invented), subtle (a spam sentence in every page), squat (leases held without crawling), sybil (a pair of identities, each confirming the other's forgeries when drawn to check them; takes two cheaters)")
	fs.DurationVar(&f.prior, "prior", 0, "the manager's --prior: how often a channel is crawled until its change interval is estimated (default: the manager's 4h, or 5m with a squatter among the cheaters, so that the hosts it held are crawled again within the run)")
	fs.IntVar(&f.hijackers, "hijackers", 0, "volunteers that attack their neighbours' zones (forged, tampered and replayed certificates, false reports); the summary counts what they got")
	fs.BoolVar(&f.churn, "churn", false, "volunteers leave (1/3 gracefully, 2/3 by crashing) and rejoin at random")
	fs.DurationVar(&f.churnEvery, "churn-every", 5*time.Second, "time between churn events")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long (default: at Ctrl-C)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the web and of the placement on the matrix")
	fs.StringVar(&f.dir, "dir", "", "keep every process's data and log in `DIR` (default: a temporary directory, removed)")
	fs.IntVar(&f.maxPages, "max-pages", 0, "pages of the largest web host (default 400)")
	fs.DurationVar(&f.delay, "delay", 250*time.Millisecond, "politeness wait between requests to one host: the operator's (the manager's --delay), which every volunteer keeps")
	fs.BoolVar(&f.verbose, "v", false, "log the swarm's progress")
	fs.BoolVar(&f.nat, "nat", false, "run the swarm in a NAT lab of network namespaces (Linux, as root): the manager, the web and --nat-public volunteers on its internet, every other volunteer behind a home router's NAT; ends once every channel is crawled and every volunteer is an overlay member, linked to its neighbours as the NATs allow, unless --duration is set")
	fs.IntVar(&f.natPublic, "nat-public", 3, "with --nat: volunteers not behind a NAT")
	fs.IntVar(&f.natSymmetric, "nat-symmetric", 2, "with --nat: volunteers behind symmetric NATs, which only a relay crosses (the others' NATs are port-restricted, which hole punching crosses)")
	return fs
}

// checkDemo checks demo's flags and arguments once parsed.
func checkDemo(f demoFlags, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.peers < 1 || f.peers > swarm.MaxPeers || f.hosts < 1 || f.hosts > swarm.MaxHosts {
		return fmt.Errorf("--peers and --hosts must be 1..%d", swarm.MaxHosts)
	}
	if f.nat && (f.natPublic < 0 || f.natSymmetric < 0 || f.natPublic+f.natSymmetric > f.peers) {
		return fmt.Errorf("--nat-public and --nat-symmetric must be at least 0 and add up to at most --peers (%d)", f.peers)
	}
	if f.hijackers < 0 || f.cheaters < 0 || f.cheaters+f.hijackers >= f.peers {
		return fmt.Errorf("--cheaters and --hijackers must be at least 0 and fewer than --peers (%d) together", f.peers)
	}
	if (f.cheaters > 0 || f.hijackers > 0) && !adversaryBuilt {
		return errors.New("--cheaters and --hijackers run the test kit's dishonest volunteers, which an installed program does not carry: in the source, build a program with them, `go build -tags adversary -o hivecrawl-adversary ./cmd/hivecrawl`, and run its demo")
	}
	if _, err := adversary.Deal(f.cheaters, f.modes()); err != nil {
		return fmt.Errorf("--cheat-modes: %w", err)
	}
	return nil
}

// modes returns --cheat-modes as a list, every mode when it is empty.
func (f demoFlags) modes() []string {
	if strings.TrimSpace(f.cheatModes) == "" {
		return slices.Clone(adversary.Modes)
	}
	var out []string
	for m := range strings.SplitSeq(f.cheatModes, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// squatPrior is the demo's --prior when a squatter runs: a squatted
// host's task is lost once the manager ended its lease (at the first
// renewal past the default hold of 5 minutes without progress: 5 min 0 s
// measured, the squatter renewing every third of the hold from its
// claim) and the clock skew allowance (1 minute) passed, and the host's
// next task comes with its channel's next round.
const squatPrior = 5 * time.Minute

// priorFor returns the manager's --prior for the demo, 0 for its default.
func (f demoFlags) priorFor() time.Duration {
	if f.prior > 0 {
		return f.prior
	}
	seats, _ := adversary.Deal(f.cheaters, f.modes())
	for _, s := range seats {
		if s.Mode == adversary.Squat {
			return squatPrior
		}
	}
	return 0
}

func runDemo(ctx context.Context, args []string) int {
	var f demoFlags
	fs := demoFlagSet(&f)
	if code, done := parseFlags(fs, args, os.Stdout, os.Stderr); done {
		return code
	}
	if err := checkDemo(f, fs); err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl demo:", err)
		return 2
	}
	if err := demo(ctx, f); err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl demo:", err)
		return 1
	}
	return 0
}

func demo(ctx context.Context, f demoFlags) error {
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program: %w", err)
	}
	dir := f.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "hivecrawl-demo-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	log := slog.New(slog.DiscardHandler)
	if f.verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	fmt.Fprintf(os.Stderr, "Starting a web of %d hosts, a manager and %d volunteers in %s …\n", f.hosts, f.peers, dir)
	cfg := swarm.Config{
		Bin: bin, Dir: dir, Peers: f.peers, Hosts: f.hosts, Seed: f.seed, Matrix: f.latency,
		Cheaters: f.cheaters, CheatModes: f.modes(), Hijackers: f.hijackers,
		Web: fixture.DemoOptions{MaxPages: f.maxPages}, Logger: log,
		// The operator's wait is the least every volunteer keeps: without
		// it the manager's default of 1 s would override a shorter one.
		ManagerArgs: []string{"--delay", f.delay.String()},
		Client:      func(c *config.Config) { c.Delay = config.Duration(f.delay) },
	}
	if p := f.priorFor(); p > 0 {
		cfg.ManagerArgs = append(cfg.ManagerArgs, "--prior", p.String())
	}
	if f.nat {
		cfg.NAT = &swarm.NAT{Public: f.natPublic, Symmetric: f.natSymmetric}
		// The demo ends when everything is crawled: a task that has not
		// started within a minute is counted lost and issued again.
		cfg.ManagerArgs = append(cfg.ManagerArgs, "--start-within", "1m")
	}
	s, err := swarm.Start(ctx, cfg)
	if err != nil {
		return err
	}
	started := time.Now()
	fmt.Printf("Manager: %s/\n", s.Manager.API.URL)
	for _, c := range s.Clients {
		if c.NAT != "" {
			fmt.Printf("Volunteer %d (%s behind a %s NAT): %s/ in its own network namespace\n", c.Index, c.IP, c.NAT, c.API.URL)
			continue
		}
		fmt.Printf("Volunteer %d (%s): %s/\n", c.Index, c.IP, c.API.URL)
	}
	fmt.Println("Press Ctrl-C to stop.")

	run := ctx
	if f.duration > 0 {
		var cancel context.CancelFunc
		run, cancel = context.WithTimeout(ctx, f.duration)
		defer cancel()
	}
	if f.nat && f.duration == 0 {
		// The NAT lab's demo ends once every channel is crawled, every
		// volunteer is an overlay member and neighbours are linked as
		// their NATs allow.
		var cancel context.CancelFunc
		run, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			defer cancel()
			if s.WaitCrawled(run) != nil {
				return
			}
			fmt.Fprintln(os.Stderr, "Every channel is crawled.")
			for s.LinksError(run) != nil {
				select {
				case <-run.Done():
					return
				case <-time.After(time.Second):
				}
			}
			fmt.Fprintln(os.Stderr, "Every volunteer is an overlay member, linked to its neighbours as the NATs allow.")
		}()
	}
	var churn swarm.ChurnCounts
	churned := make(chan swarm.ChurnCounts, 1)
	if f.churn {
		go func() { churned <- s.Churn(run, rand.New(rand.NewPCG(f.seed, 0x636875726e)), f.churnEvery) }()
	} else {
		close(churned)
	}
	<-run.Done()
	churn = <-churned

	// Ctrl-C has cancelled ctx: the rest needs its own bounded context.
	end, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sum swarm.Summary
	obsErr := s.Observe(end, &sum, time.Since(started))
	closeErr := s.Close(end)
	rep, err := s.Manager.ReadChannels()
	if err == nil {
		rep.AddChannels(&sum)
		if err := s.CountChecksApart(&sum, rep); err != nil && obsErr == nil {
			obsErr = err
		}
	} else if obsErr == nil {
		obsErr = err
	}
	if v, err := s.Validation(sum.PagesServed, rep); err == nil {
		sum.Validation = &v
	} else if obsErr == nil {
		obsErr = err
	}
	out := struct {
		swarm.Summary
		Churn *swarm.ChurnCounts `json:"churn,omitempty"`
	}{Summary: sum}
	if f.churn {
		out.Churn = &churn
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	if errors.Is(closeErr, swarm.ErrKilled) {
		return closeErr
	}
	return obsErr
}
