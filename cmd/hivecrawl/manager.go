package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/internal/floor"
	"github.com/hivecrawl/hivecrawl/internal/netguard"
	"github.com/hivecrawl/hivecrawl/internal/semver"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/placement"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/task"
)

func init() {
	register(command{name: "manager", summary: "run the operator's manager and storage module",
		flags: flagsOf(managerFlags), run: runManager})
	register(command{name: "join", summary: "join the network a manager's profile describes",
		args: "[flags] PROFILE", flags: flagsOf(joinFlags), run: stdio(joinMain)})
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// managerDir is the manager's data directory within an instance's dirs.
func managerDir(d paths.Dirs) string { return app.ManagerDir(d) }

// managerOptions are manager's flags.
type managerOptions struct {
	seeds                                   string
	listen, bootstrap                       listFlag
	api, strategy, name, assignment         string
	tick, prior, slack, delay               time.Duration
	leaseHold, startWithin, clockSkew       time.Duration
	perIP, perDomain, sharedIP, sharedAbove int
	ipWait                                  time.Duration
	domainBudget                            int
	restartGrace                            time.Duration
	allowLoopback, allowTestNets            bool
	coordinates, verbose                    bool
	storeRaw                                bool
	pieceAbove                              int
	pagePlan, asn                           string
	userAgent, signatureAgent, directory    string
	contact                                 string
	unsigned                                bool
	indexNow                                string
	minClientVersion, updateHint            string
	db                                      string
	store                                   string
	maxWARCFile                             int64
	home                                    *string
}

func managerFlags(o *managerOptions) *flag.FlagSet {
	fs := newFlagSet("manager")
	fs.StringVar(&o.seeds, "seeds", "", "add the seed URLs in `FILE` (one per line) as channels")
	fs.Var(&o.listen, "listen", "libp2p listen `ADDR` (multiaddr, repeatable; default TCP and QUIC on port 4901)")
	fs.Var(&o.bootstrap, "bootstrap", "another peer the network profile names for newcomers to join through, as a multiaddr ending in /p2p/ID (repeatable): volunteers keep joining through it while the manager is down")
	fs.StringVar(&o.api, "api", manager.DefaultAPI, "local API and status page `ADDR` (loopback only)")
	fs.StringVar(&o.strategy, "strategy", manager.DefaultStrategy, "recrawl strategy: fixed, iir, icr or controller")
	fs.StringVar(&o.name, "name", "", "network `NAME` written into the profile")
	fs.DurationVar(&o.tick, "tick", manager.DefaultTick, "scheduling `period`")
	fs.BoolVar(&o.allowLoopback, "allow-loopback", false, "test only: keep loopback addresses in the network profile, and take seeds on loopback")
	fs.BoolVar(&o.allowTestNets, "allow-test-nets", false, "test only: treat the IPv4 documentation ranges as public internet addresses, seeds there too (the NAT lab, swarm/netlab)")
	fs.BoolVar(&o.coordinates, "coordinates", true, "coordinate-aware placement: peers move to their network coordinate and hosts are located by peers' RTT measurements; --coordinates=false places both at hashes of their names")
	fs.StringVar(&o.assignment, "assignment", manager.AssignCAN, "how hosts go to peers: can (CAN routing with load balancing) or hash (consistent hashing, the comparison baseline)")
	fs.DurationVar(&o.prior, "prior", 0, "a new channel's change `interval` until one is estimated (default 4h)")
	fs.DurationVar(&o.slack, "slack", manager.DefaultSlack, "added to 2 × a task's interval before a task without a result counts as lost and its channel is due again")
	fs.StringVar(&o.pagePlan, "page-plan", channels.DefaultPlan, "which known pages a recrawl fetches: all (every page, every round), adaptive (each page at its own frequency, paper 003) or fountain (paper 001's planner)")
	fs.IntVar(&o.pieceAbove, "piece-above", 0, "split hosts of more than `N` pages into pieces (default 5000)")
	fs.DurationVar(&o.delay, "delay", time.Second, "the politeness wait between requests to one host that every crawler keeps at least (robots.txt Crawl-delay can raise it)")
	fs.StringVar(&o.userAgent, "user-agent", "", "the User-Agent crawlers send (default \"Hivecrawl/VERSION (+BOT PAGE)\", the bot page this manager serves; \"(+"+manager.DefaultContact+")\" when --unsigned)")
	fs.StringVar(&o.contact, "contact", "", "how site owners reach you, an e-mail `ADDRESS` or URL, shown on the bot page and signature agent card (default "+manager.DefaultContact+")")
	fs.BoolVar(&o.unsigned, "unsigned", false, "send volunteers out without Web Bot Auth signatures, so no site can verify their requests (not recommended; logged at every start)")
	fs.StringVar(&o.signatureAgent, "signature-agent", "", "the `URL` of the origin serving this network's key directory (/.well-known/http-message-signatures-directory), sent with every signed request")
	fs.StringVar(&o.indexNow, "indexnow", "", "take IndexNow submissions of changed URLs from web sites on `ADDR` (host:port, reachable by sites; the path is /indexnow)")
	fs.StringVar(&o.directory, "directory", "", "serve web sites the key directory that verifies volunteers' signed requests, the bot page and the signature agent card on `ADDR` (host:port, reachable by sites; default the first --listen IP and a port chosen once and kept); --signature-agent defaults to its origin")
	fs.IntVar(&o.perIP, "per-ip", manager.DefaultPerIP, "the most crawlers at once, swarm-wide, on the hosts at one IP address (0 or less: no cap)")
	fs.IntVar(&o.perDomain, "per-domain", manager.DefaultPerDomain, "the most crawlers at once, swarm-wide, on the hosts of one registrable domain (0 or less: no cap)")
	fs.IntVar(&o.sharedIP, "shared-ip", manager.DefaultSharedIP, "the cap of an address seen serving more than --shared-above registrable domains, a shared front end (0 or less: --per-ip)")
	fs.IntVar(&o.sharedAbove, "shared-above", manager.DefaultSharedAbove, "how many registrable domains make an address a shared front end")
	fs.IntVar(&o.domainBudget, "domain-budget", channels.DefaultDomainBudget, "the most channels links from crawled sites may make per registrable domain, so a wildcard-subdomain trap makes a bounded number (0 or less: no budget)")
	fs.DurationVar(&o.ipWait, "ip-wait", 0, "the least time between a crawler starting or ending on an IP address or domain and the next one starting there (default --delay; negative: none)")
	fs.DurationVar(&o.leaseHold, "lease-hold", manager.DefaultLeaseHold, "how long a crawler's claim on a host lasts unless renewed (renewed every third of it)")
	fs.DurationVar(&o.startWithin, "start-within", manager.DefaultStartWithin, "how long a task may wait in a crawler's queue before it must have started")
	fs.DurationVar(&o.clockSkew, "clock-skew", manager.DefaultClockSkew, "how far a crawler's clock may run behind the manager's: a host's lease counts as live this much longer")
	fs.DurationVar(&o.restartGrace, "restart-grace", manager.DefaultRestartGrace, "after a start, how long no task is counted lost: crawlers that finished while the manager was down deliver their held results first")
	fs.StringVar(&o.db, "db", "", "keep channels, tasks, leases, receipts and credit in the PostgreSQL database at `URL` (postgres://user@host/db; the password from PGPASSWORD or ~/.pgpass) instead of files in the data directory; managers of one network may share it, each with a copy of the same key")
	fs.StringVar(&o.store, "store", "", "where closed WARC files go: the data directory's warc/ folder (default), or `s3://BUCKET/PREFIX` on an S3-compatible object store, with the endpoint and credentials from AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION (docs/operator/storage.md)")
	fs.Int64Var(&o.maxWARCFile, "max-warc-file", storage.DefaultMaxFileSize, "close a WARC file and start the next one past `BYTES`")
	fs.StringVar(&o.asn, "asn", "", "read the autonomous systems of addresses from `FILE`, one \"PREFIX ASN\" line each (a routing table dump as pyasn or ip2asn write it): no spot-check goes to a volunteer of the autonomous system of the result's crawler (default: only /24s and /48s link volunteers)")
	fs.BoolVar(&o.storeRaw, "store-raw", false, "also store each page's raw HTTP response as a WARC response record beside its text: crawlers upload the compressed HTML too (clients older than this option refuse such tasks)")
	fs.StringVar(&o.minClientVersion, "min-client-version", "", "give no task to volunteers running a Hivecrawl older than `X.Y.Z`: they are told why and how to update, and their lease claims are refused")
	fs.StringVar(&o.updateHint, "update-hint", "", "what outdated volunteers are told to do: the `TEXT` of a command or your download page's URL (default \""+manager.DefaultUpdateHint+"\")")
	fs.BoolVar(&o.verbose, "v", false, "log at debug level")
	o.home = paths.Flag(fs)
	hide(fs, "allow-loopback", "allow-test-nets")
	return fs
}

func runManager(ctx context.Context, args []string) int {
	var o managerOptions
	fs := managerFlags(&o)
	if code, done := parseFlags(fs, args, os.Stdout, os.Stderr); done {
		return code
	}
	if unexpectedArgs(fs, os.Stderr) {
		return 2
	}
	plan, err := channels.ParsePlan(o.pagePlan)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl manager:", err)
		return 2
	}
	if o.minClientVersion != "" {
		if _, err := semver.Parse(o.minClientVersion); err != nil {
			fmt.Fprintf(os.Stderr, "hivecrawl manager: --min-client-version %q: %v: give a release such as %s\n", o.minClientVersion, err, version)
			return 2
		}
	}
	if o.allowTestNets {
		host.TestNetsPublic()
	}
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	dirs, err := paths.Resolve(*o.home)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl manager:", err)
		return 1
	}
	opts := manager.Options{
		Dir:           managerDir(dirs),
		DB:            o.db,
		Listen:        o.listen,
		Bootstrap:     o.bootstrap,
		API:           o.api,
		Name:          o.name,
		AllowLoopback: o.allowLoopback,
		AllowTestNets: o.allowTestNets,
		SeedAllow:     netguard.Allowing(o.allowLoopback, o.allowTestNets),
		Logger:        log,
		Version:       version,
		Schedule: manager.ScheduleOptions{Strategy: o.strategy, Tick: o.tick, PieceAbove: o.pieceAbove, Slack: o.slack,
			Channels: channels.Options{Prior: o.prior, Plan: channels.PagePlan{Kind: plan}, DomainBudget: noCap(o.domainBudget)}},
		Leases: manager.LeaseOptions{LeaseHold: o.leaseHold, StartWithin: o.startWithin, ClockSkew: o.clockSkew, RestartGrace: o.restartGrace},
		Politeness: manager.PolitenessOptions{Delay: o.delay, IPWait: o.ipWait,
			PerIP: noCap(o.perIP), PerDomain: noCap(o.perDomain), SharedIP: noCap(o.sharedIP), SharedAbove: noCap(o.sharedAbove),
			Policy: task.Policy{UserAgent: o.userAgent, SignatureAgent: o.signatureAgent}},
		Placement: manager.PlacementOptions{Assignment: o.assignment},
		Storage:   manager.StorageOptions{Store: o.store, MaxWARCFile: o.maxWARCFile, StoreRaw: o.storeRaw},
		Checks:    manager.CheckOptions{ASN: o.asn},
		Site:      manager.SiteOptions{Directory: o.directory, Unsigned: o.unsigned, Contact: o.contact, IndexNow: o.indexNow},
		Admission: manager.AdmissionOptions{MinClientVersion: o.minClientVersion, UpdateHint: o.updateHint},
	}
	if o.coordinates {
		b := placement.DefaultBounds
		opts.Placement.Bounds = &b
	}
	m, err := manager.New(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl manager:", listenProblem(err))
		return 1
	}
	if o.seeds != "" {
		if err := importSeeds(m, o.seeds, opts.SeedAllow); err != nil {
			m.Close()
			fmt.Fprintln(os.Stderr, "hivecrawl manager:", err)
			return 1
		}
	}
	fmt.Printf("Manager peer ID: %s\n", m.ID())
	for _, a := range m.Addrs() {
		fmt.Printf("Listening on: %s\n", a)
	}
	fmt.Printf("Network profile: %s\n", m.ProfilePath())
	fmt.Printf("Status page: %s/\n", m.APIURL())
	if u := m.DirectoryURL(); u != "" {
		fmt.Printf("Bot page for web sites: %s\n", m.BotPageURL())
		fmt.Printf("Key directory for web sites: %s\n", u)
	} else {
		fmt.Println("Volunteers' requests go out UNSIGNED: web sites cannot verify them (--unsigned).")
	}
	if u := m.IndexNowURL(); u != "" {
		fmt.Printf("IndexNow for web sites: %s\n", u)
	}
	fmt.Printf("Volunteers join with: hivecrawl join %s\n", m.ProfilePath())
	log.Info("Manager started", "peer", m.ID().String())
	if err := m.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl manager:", err)
		return 1
	}
	return 0
}

// importSeeds adds a seed file's URLs, those channels.CheckSeed passes
// under allow; bad lines are reported and skipped.
func importSeeds(m *manager.Manager, path string, allow netguard.Allow) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("seeds: %w", err)
	}
	defer f.Close()
	seeds, bad, err := channels.ReadSeeds(f)
	if err != nil {
		return fmt.Errorf("seeds %s: %w", path, err)
	}
	// Each line passes the check every added site passes (AddSites); a
	// refused one is skipped with the reason, the others are taken.
	good := seeds[:0]
	for _, s := range seeds {
		if _, _, err := channels.CheckSeed(s, allow); err != nil {
			bad = append(bad, err)
			continue
		}
		good = append(good, s)
	}
	for _, e := range bad {
		fmt.Fprintf(os.Stderr, "hivecrawl manager: seeds %s: %v (skipped)\n", path, e)
	}
	seeds = good
	created, err := m.AddSeeds(seeds)
	if err != nil {
		return err
	}
	fmt.Printf("Seeds: %d URLs read, %d new channels\n", len(seeds), len(created))
	return nil
}

// joinOptions are join's flags.
type joinOptions struct {
	home                         *string
	allowLoopback, allowTestNets bool
}

func joinFlags(o *joinOptions) *flag.FlagSet {
	fs := newFlagSet("join")
	o.home = paths.Flag(fs)
	fs.BoolVar(&o.allowLoopback, "allow-loopback", false, "test only: accept a profile whose bootstrap peers are on this machine")
	fs.BoolVar(&o.allowTestNets, "allow-test-nets", false, "test only: accept bootstrap peers at the IPv4 documentation ranges (the NAT lab, swarm/netlab)")
	hide(fs, "allow-loopback", "allow-test-nets")
	return fs
}

func joinMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o joinOptions
	fs := joinFlags(&o)
	if code, done := parseFlags(fs, reorder(args), stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	p, err := profile.Read(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "hivecrawl join:", joinProblem(fs.Arg(0), err))
		return 1
	}
	if err := floor.Bootstrap(p.Bootstrap, netguard.Allowing(o.allowLoopback, o.allowTestNets)); err != nil {
		fmt.Fprintf(stderr, "hivecrawl join: %s: %v. Hivecrawl did not join; ask the network's operator for a profile with public addresses.\n", fs.Arg(0), err)
		return 1
	}
	dirs, err := paths.Resolve(*o.home)
	if err == nil {
		err = dirs.Ensure()
	}
	if err != nil {
		fmt.Fprintln(stderr, "hivecrawl join:", err)
		return 1
	}
	dst := filepath.Join(dirs.Config, profile.FileName)
	if err := profile.Write(dst, p); err != nil {
		fmt.Fprintln(stderr, "hivecrawl join:", err)
		return 1
	}
	label := p.Name
	if label == "" {
		label = "manager " + p.Manager
	}
	fmt.Fprintf(stdout, "Joined the network of %s (profile stored in %s). Restart 'hivecrawl run' to take part.\n", label, dst)
	if min := p.MinClientVersion; min != "" {
		if v, _ := semver.Parse(min); semver.Older(version, v) {
			fmt.Fprintf(stderr, "hivecrawl join: this network gives tasks to Hivecrawl %s or newer, and this is %s: update it first (%s)\n", min, version, manager.DefaultUpdateHint)
		}
	}
	return 0
}

// listenProblem is err in words, and what to do when it is a listen
// port in use: a client's or a manager's libp2p port.
func listenProblem(err error) string {
	var pe *host.PortInUseError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	return fmt.Sprintf("port %d is in use (%s, by another program or another Hivecrawl); choose another with --listen, "+
		"such as --listen /ip4/0.0.0.0/tcp/PORT --listen /ip4/0.0.0.0/udp/PORT/quic-v1", pe.Port, pe.Addr)
}

// joinProblem says why the file at path cannot be joined with, and what
// to do.
func joinProblem(path string, err error) string {
	const ask = "ask the network's operator for the profile file their manager writes (it prints its path as \"Network profile:\")"
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("there is no file %s: give the path of the network profile, or %s", path, ask)
	case errors.Is(err, profile.ErrInvalid):
		return fmt.Sprintf("%v; %s", err, ask)
	}
	return err.Error()
}

// reorder moves flags before positional arguments, so "join PROFILE
// --home DIR" parses like "join --home DIR PROFILE".
func reorder(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && a != "--manager" && a != "-manager" && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	return append(flags, rest...)
}

// noCap maps a flag's "0 or less: none" to the option's negative.
func noCap(v int) int {
	if v <= 0 {
		return -1
	}
	return v
}
