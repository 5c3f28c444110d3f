package swarm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// Defaults for zero Config fields.
const (
	DefaultPeers = 8
	DefaultHosts = 40
	// MaxHosts is the most hosts: one /24 of loopback addresses.
	MaxHosts = 254
	// MaxPeers is the most clients: one /24 of loopback addresses.
	MaxPeers = 254
	// DefaultReady bounds the wait for one process to come up.
	DefaultReady = 60 * time.Second
)

// Config describes a swarm.
type Config struct {
	// Bin is the hivecrawl binary every process runs. Required.
	Bin string
	// Dir holds every process's data directory, log and the layout.
	// Required; it must exist.
	Dir string
	// Peers is the number of volunteer clients (default 8), Hosts the
	// number of web hosts (default 40), at most 254 each.
	Peers, Hosts int
	// Seed makes the web and the placement on the matrix repeatable.
	Seed uint64
	// Matrix names the latency matrix (emulate.Layout.Matrix): "" is the
	// PlanetLab matrix the project carries.
	Matrix string
	// Web shapes the demo web (fixture.DemoSites).
	Web fixture.DemoOptions
	// PerAddr serves that many web hosts at each address, as shared
	// hosting does (WebOptions.PerAddr); 0 or 1: one host per address.
	PerAddr int
	// OwnBinaries runs each client from its own copy of Bin, as each
	// volunteer runs the program on a machine of their own: processes of
	// one executable share its pages, so without copies one client's
	// resident memory counts pages that a single volunteer's client alone
	// would hold or let go (the idle footprint).
	OwnBinaries bool
	// ManagerArgs and ClientArgs are added to `hivecrawl manager` and
	// `hivecrawl run`.
	ManagerArgs, ClientArgs []string
	// Cheaters is how many of the clients (the last ones) cheat, each in
	// one of CheatModes (default: swarm/adversary's Modes) in turn
	// (adversary.Deal): a sybil pair takes two clients, which share a
	// directory; a squatter takes every task it is sent at once.
	Cheaters   int
	CheatModes []string
	// Hijackers is how many of the clients (those before the cheaters)
	// attack their neighbours' zones (testkit/hijack).
	Hijackers int
	// DeferSeeds starts the manager without the web's hosts; AddSeeds
	// adds them later, so tasks are placed by an overlay that has
	// settled rather than by the first peers to arrive.
	DeferSeeds bool
	// Client adjusts each client's configuration, written before its
	// first start. The swarm already turns off the pause for busy CPU and
	// the CPU cap: a whole swarm on one machine keeps the CPU busy.
	Client func(*config.Config)
	// Managers is how many managers run the network (default 1). More
	// than one share the PostgreSQL database ManagerArgs name with --db,
	// and copies of the first one's key.
	Managers int
	// NAT, when set, runs the swarm in a NAT lab (Linux, as root).
	NAT *NAT
	// Later is how many of the Peers clients are set up (joined to the
	// network, configured) but left for the caller to start.
	Later int
	// Ready bounds each wait for a process to come up; default 60 s.
	Ready time.Duration
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Peers <= 0 {
		c.Peers = DefaultPeers
	}
	if c.Hosts <= 0 {
		c.Hosts = DefaultHosts
	}
	if c.Ready <= 0 {
		c.Ready = DefaultReady
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// HostIP returns the loopback address of web host k (as fixture serves it).
func HostIP(k int) string { return fmt.Sprintf("127.0.1.%d", 1+k) }

// ClientIP returns the loopback address of client i: 127.0.(2+i).1, each
// client on a /24 of its own, as volunteers are on networks of their own.
// The manager sends no spot-check to a member on the network of the
// result's crawler (manager/peernets); with every client on one /24, no
// check of the swarm's results was ever sent.
func ClientIP(i int) string { return fmt.Sprintf("127.0.%d.1", 2+i) }

// Swarm is a running web, manager and clients. Its methods are safe for
// concurrent use; Close stops everything.
type Swarm struct {
	cfg    Config
	log    *slog.Logger
	http   *http.Client
	Layout *emulate.Layout
	// LayoutFile is where the layout was saved for the processes.
	LayoutFile string
	Web        *WebProc
	// Manager is the first of Managers, whose profile the clients join
	// with.
	Manager  *Manager
	Managers []*Manager
	Clients  []*Client
	// lab is the NAT lab the swarm runs in, nil on loopback.
	lab *natLab
	// seats are the cheaters' parts, the last clients' in order.
	seats []adversary.Seat
	// web is the web's counts as Observe last read them.
	web map[string]fixture.Stats
}

// Start builds the layout, starts the web, the manager with every host as
// a seed, and the clients, and returns once each answers its API. On error
// whatever was started is stopped.
func Start(ctx context.Context, cfg Config) (*Swarm, error) {
	cfg = cfg.withDefaults()
	if cfg.Bin == "" || cfg.Dir == "" {
		return nil, errors.New("start swarm: Bin and Dir are required")
	}
	if cfg.Hosts > MaxHosts || cfg.Peers > MaxPeers {
		return nil, fmt.Errorf("start swarm: at most %d hosts and %d peers", MaxHosts, MaxPeers)
	}
	seats, err := adversary.Deal(cfg.Cheaters, cfg.CheatModes)
	if err != nil {
		return nil, fmt.Errorf("start swarm: %w", err)
	}
	s := &Swarm{cfg: cfg, log: cfg.Logger, http: &http.Client{Timeout: 10 * time.Second}, seats: seats}
	if err := s.start(ctx); err != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		s.Close(cctx)
		return nil, fmt.Errorf("start swarm: %w", err)
	}
	return s, nil
}

func (s *Swarm) start(ctx context.Context) error {
	cfg := s.cfg
	if cfg.NAT != nil {
		// The lab has no emulated latency: its own is near nothing.
		if err := s.buildLab(ctx); err != nil {
			return err
		}
		return s.startProcesses(ctx)
	}
	ips := make([]string, 0, cfg.Hosts+cfg.Peers)
	for k := range cfg.Hosts {
		ips = append(ips, HostIP(k))
	}
	for i := range cfg.Peers {
		ips = append(ips, ClientIP(i))
	}
	if m := cfg.Matrix; m != "" && m != emulate.MatrixPlanetLab && m != emulate.MatrixSeattle {
		// The processes read the layout from elsewhere: a file path must
		// not depend on the working directory.
		abs, err := filepath.Abs(m)
		if err != nil {
			return fmt.Errorf("latency matrix %s: %w", m, err)
		}
		cfg.Matrix = abs
	}
	l, err := emulate.Place(cfg.Matrix, ips, rand.New(rand.NewPCG(cfg.Seed, 0x6c6179)))
	if err != nil {
		return err
	}
	s.Layout, s.LayoutFile = l, filepath.Join(cfg.Dir, "layout.json")
	if err := l.Save(s.LayoutFile); err != nil {
		return err
	}
	return s.startProcesses(ctx)
}

// startProcesses starts the web, the managers and the clients.
func (s *Swarm) startProcesses(ctx context.Context) error {
	cfg := s.cfg
	if err := s.startWeb(ctx); err != nil {
		return err
	}
	if err := s.startManager(ctx); err != nil {
		return err
	}
	for i := 1; i < cfg.Managers; i++ {
		if err := s.startSharingManager(ctx, i); err != nil {
			return err
		}
	}
	s.Clients = make([]*Client, cfg.Peers)
	for i := range s.Clients {
		bin := cfg.Bin
		if cfg.OwnBinaries {
			bin = filepath.Join(cfg.Dir, fmt.Sprintf("client-%02d.bin", i))
			if err := copyFile(cfg.Bin, bin); err != nil {
				return err
			}
		}
		s.Clients[i] = s.newClient(i, bin)
	}
	if err := s.parallel(ctx, func(ctx context.Context, c *Client) error {
		if err := c.join(ctx); err != nil {
			return err
		}
		return c.configure()
	}); err != nil {
		return err
	}
	// Attackers join a network whose honest volunteers are members. One
	// first in an empty network is sent every task: a squatter would hold
	// every host until its leases' first renewal, 5 minutes on, which a
	// short demo never reaches (the 13-minute runs of benchmarks.md do).
	honest := func(c *Client) bool { return c.Cheat == "" && !c.Hijack }
	start := func(want func(*Client) bool) error {
		return s.parallel(ctx, func(ctx context.Context, c *Client) error {
			if !want(c) || c.Index >= cfg.Peers-cfg.Later {
				return nil
			}
			return c.Start(ctx)
		})
	}
	if err := start(honest); err != nil {
		return err
	}
	attacker := func(c *Client) bool { return !honest(c) }
	if !slices.ContainsFunc(s.Clients[:cfg.Peers-cfg.Later], attacker) {
		return nil
	}
	if err := s.waitMembers(ctx, honest); err != nil {
		return err
	}
	return start(attacker)
}

// waitMembers waits, at most the Ready bound, until every running client
// that which selects is an overlay member the manager knows.
func (s *Swarm) waitMembers(ctx context.Context, which func(*Client) bool) error {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.Ready)
	defer cancel()
	err := poll(rctx, 200*time.Millisecond, func() (bool, error) {
		for _, c := range s.Clients {
			if !which(c) || !c.Running() {
				continue
			}
			st, err := c.Status(rctx)
			if err != nil || st.Overlay == nil || !st.Overlay.Member {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("wait for the volunteers to be members: %w", err)
	}
	return nil
}

// parallel runs fn for every client at once and joins the errors.
func (s *Swarm) parallel(ctx context.Context, fn func(context.Context, *Client) error) error {
	errs := make([]error, len(s.Clients))
	var wg sync.WaitGroup
	for i, c := range s.Clients {
		wg.Go(func() { errs[i] = fn(ctx, c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *Swarm) startWeb(ctx context.Context) error {
	info := filepath.Join(s.cfg.Dir, "web.json")
	args := []string{"fixture-web", "--hosts", strconv.Itoa(s.cfg.Hosts), "--seed", strconv.FormatUint(s.cfg.Seed, 10), "--info", info}
	if s.LayoutFile != "" {
		args = append(args, "--layout", s.LayoutFile)
	}
	if s.lab != nil {
		args = append(args, "--ip-base", webIPBase)
	}
	if s.cfg.Web.MaxPages > 0 {
		args = append(args, "--max-pages", strconv.Itoa(s.cfg.Web.MaxPages))
	}
	if s.cfg.Web.MinPages > 0 {
		args = append(args, "--min-pages", strconv.Itoa(s.cfg.Web.MinPages))
	}
	if s.cfg.PerAddr > 1 {
		args = append(args, "--per-address", strconv.Itoa(s.cfg.PerAddr))
	}
	s.Web = &WebProc{Proc: NewProc("web", s.cfg.Bin, filepath.Join(s.cfg.Dir, "web.log"), args...), info: info}
	s.Web.wrap = s.webPlace().wrap()
	if err := s.Web.Start(); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, s.cfg.Ready)
	defer cancel()
	if err := s.Web.wait(wctx, s.http); err != nil {
		return err
	}
	per := max(s.cfg.PerAddr, 1)
	for k, h := range s.Web.Hosts {
		if ip, _, _ := net.SplitHostPort(h.Addr); ip != s.hostIP(k/per) {
			return fmt.Errorf("web host %s serves on %s, not %s: this system does not route 127.0.0.0/8 to loopback", h.Name, ip, s.hostIP(k/per))
		}
	}
	s.log.Info("Web started", "hosts", len(s.Web.Hosts))
	return nil
}

// run runs the binary to completion and returns its combined output.
func (s *Swarm) run(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, s.cfg.Bin, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("hivecrawl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// StopClients stops the running clients, all at once, each gracefully.
func (s *Swarm) StopClients(ctx context.Context) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for _, c := range s.Clients {
		if c == nil || !c.Running() {
			continue
		}
		wg.Go(func() {
			if err := c.Stop(ctx); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Close stops the clients (gracefully, in parallel), then the manager, then
// the web; a process that does not stop before ctx ends is killed. It
// returns the processes' exit errors.
func (s *Swarm) Close(ctx context.Context) error {
	var errs []error
	stop := func(p *Proc) {
		if p != nil && p.Running() {
			if err := p.Stop(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := s.StopClients(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, m := range s.Managers {
		stop(m.Proc)
	}
	if s.Web != nil {
		stop(s.Web.Proc)
	}
	if s.lab != nil {
		errs = append(errs, s.lab.Close())
	}
	return errors.Join(errs...)
}

// Dir returns the swarm's directory.
func (s *Swarm) Dir() string { return s.cfg.Dir }

// HTTP returns the client used for the processes' APIs.
func (s *Swarm) HTTP() *http.Client { return s.http }

// homeDirs resolves a process's --home.
func homeDirs(home string) paths.Dirs {
	d, err := paths.Resolve(home)
	if err != nil {
		// Resolve fails only for an empty home, which the swarm never uses.
		panic(err)
	}
	return d
}

// copyFile copies the executable src to dst.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copy client binary: %w", err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		return fmt.Errorf("copy client binary: %w", err)
	}
	return nil
}
