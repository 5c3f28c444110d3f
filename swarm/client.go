package swarm

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Client is one volunteer client process.
type Client struct {
	*Proc
	s *Swarm
	// Index numbers the client from 0; IP is its loopback address.
	Index int
	IP    string
	Home  string
	// API is the local API of the current run.
	API loopback.Info
	// Cheat is the client's way of cheating (swarm/adversary), "" for an honest
	// one; CheatPair numbers a sybil's pair (from 1), whose other client
	// is its twin.
	Cheat     string
	CheatPair int
	// Hijack marks a client that attacks its neighbours' zones
	// (testkit/hijack).
	Hijack bool
	// NAT names the NAT in front of the client in a NAT lab, "" for none.
	NAT string
	// http reaches its local API, in its namespace in a NAT lab.
	http *http.Client
}

func (s *Swarm) newClient(i int, bin string) *Client {
	at := s.clientPlace(i)
	c := &Client{s: s, Index: i, IP: at.ip, Home: filepath.Join(s.cfg.Dir, fmt.Sprintf("client-%02d", i)), NAT: s.natOf(i), http: s.httpAt(at)}
	args := []string{"run", "--headless", "--home", c.Home}
	if s.lab != nil {
		args = append(args, "--allow-test-nets", "--listen", "/ip4/"+c.IP+"/tcp/4901", "--listen", "/ip4/"+c.IP+"/udp/4901/quic-v1")
	} else {
		args = append(args, "--allow-loopback", "--bind", c.IP, "--emulate", s.LayoutFile)
	}
	args = append(args, s.cfg.ClientArgs...)
	if first := s.cfg.Peers - s.cfg.Cheaters - s.cfg.Hijackers; i >= first && i < first+s.cfg.Hijackers {
		c.Hijack = true
		args = append(args, "--hijack")
	}
	if k := i - (s.cfg.Peers - s.cfg.Cheaters); k >= 0 && k < len(s.seats) {
		c.Cheat, c.CheatPair = s.seats[k].Mode, s.seats[k].Pair
		args = append(args, "--cheat", c.Cheat)
		switch c.Cheat {
		case adversary.Sybil:
			args = append(args, "--cheat-pair", s.pairDir(c.CheatPair))
		case adversary.Squat:
			// It claims every task it is sent at once, as a squatter
			// would, rather than three at a time.
			args = append(args, "--threads", strconv.Itoa(squatThreads))
		}
	}
	c.Proc = NewProc(fmt.Sprintf("client-%02d", i), bin, filepath.Join(s.cfg.Dir, fmt.Sprintf("client-%02d.log", i)), args...)
	c.wrap = at.wrap()
	return c
}

// squatThreads is how many tasks a squatter runs, and so leases it
// holds, at once.
const squatThreads = 32

// pairDir is the directory sybil pair n shares, made before its clients
// start.
func (s *Swarm) pairDir(n int) string { return filepath.Join(s.cfg.Dir, fmt.Sprintf("sybil-%d", n)) }

// join stores the manager's profile in the client's home.
func (c *Client) join(ctx context.Context) error { return c.Join(ctx, c.s.Manager.Profile) }

// Join stores the network profile at path as the client's (hivecrawl
// join); it takes effect at the client's next start.
func (c *Client) Join(ctx context.Context, path string) error {
	args := []string{"join", path, "--home", c.Home, "--allow-loopback"}
	if c.s.lab != nil {
		args[len(args)-1] = "--allow-test-nets"
	}
	_, err := c.s.run(ctx, args...)
	return err
}

// configure writes the client's configuration file.
func (c *Client) configure() error {
	cfg := config.Default()
	cfg.BusyThreshold, cfg.CPU = 0, 0
	// A free port, never the dashboard's fixed one (config.DefaultAPIPort):
	// that belongs to the user's own client, running or started later.
	cfg.APIPort = 0
	if c.CheatPair > 0 {
		if err := os.MkdirAll(c.s.pairDir(c.CheatPair), 0o700); err != nil {
			return fmt.Errorf("configure %s: %w", c.Name, err)
		}
	}
	if c.s.cfg.Client != nil {
		c.s.cfg.Client(&cfg)
	}
	if err := config.Save(homeDirs(c.Home).ConfigFile(), cfg); err != nil {
		return fmt.Errorf("configure %s: %w", c.Name, err)
	}
	return nil
}

// Start starts the client and waits until its API answers.
func (c *Client) Start(ctx context.Context) error {
	if err := c.Proc.Start(); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, c.s.cfg.Ready)
	defer cancel()
	file := homeDirs(c.Home).APIFile()
	err := poll(rctx, 100*time.Millisecond, func() (bool, error) {
		if !c.Running() {
			return false, fmt.Errorf("%s exited: %v (see %s)", c.Name, c.Err(), c.log)
		}
		info, err := loopback.ReadInfo(file)
		if err != nil || info.PID != c.PID() {
			return false, nil
		}
		var st localapi.Status
		if err := getJSON(rctx, c.http, info.URL+"/api/status", info.Token, &st); err != nil {
			return false, nil
		}
		c.API = info
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("wait for %s: %w", c.Name, err)
	}
	c.s.log.Info("Client started", "client", c.Name, "pid", c.PID(), "ip", c.IP)
	return nil
}

// Status returns the client's status.
func (c *Client) Status(ctx context.Context) (localapi.Status, error) {
	var st localapi.Status
	if err := getJSON(ctx, c.http, c.API.URL+"/api/status", c.API.Token, &st); err != nil {
		return st, fmt.Errorf("%s status: %w", c.Name, err)
	}
	return st, nil
}

func writeFile(path, s string) error {
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
