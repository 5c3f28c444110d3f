package swarm

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/keptport"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/proto/profile"
)

// Manager is the manager process.
type Manager struct {
	*Proc
	s    *Swarm
	Home string
	// Listen is the manager's fixed libp2p address.
	Listen string
	// http reaches its local API, in the lab's namespace when there is one.
	http *http.Client
	// API is the local API of the current run; Profile the network
	// profile path.
	API     loopback.Info
	Profile string
}

// Dir returns the manager's data directory.
func (m *Manager) Dir() string { return filepath.Join(homeDirs(m.Home).Data, "manager") }

// newManager makes manager name (its home, log and process) on a free
// port, and returns it with the arguments every start of it takes.
func (s *Swarm) newManager(name string, extra ...string) (*Manager, []string, error) {
	at := s.managerPlace()
	m := &Manager{s: s, Home: filepath.Join(s.cfg.Dir, name), http: s.httpAt(at)}
	base := []string{"manager", "--home", m.Home, "--tick", "1s"}
	if s.lab != nil {
		// Its own address in the lab, TCP and QUIC as on the internet.
		m.Listen = "/ip4/" + at.ip + "/tcp/4901"
		base = append(base, "--listen", m.Listen, "--listen", "/ip4/"+at.ip+"/udp/4901/quic-v1", "--allow-test-nets")
	} else {
		// A port below the system's ephemeral range, so that no other
		// process is given it while the manager is down (a connection's
		// source port, a listener on port 0): a restarted manager must
		// get its port back, as clients find it there. An ephemeral port
		// was lost so in TestManagerDown's five minutes down.
		port, err := fixedPort()
		if err != nil {
			return nil, nil, err
		}
		m.Listen = fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", port)
		base = append(base, "--listen", m.Listen, "--allow-loopback")
	}
	base = append(base, s.cfg.ManagerArgs...)
	m.Proc = NewProc(name, s.cfg.Bin, filepath.Join(s.cfg.Dir, name+".log"), append(base, extra...)...)
	m.wrap = at.wrap()
	return m, base, nil
}

func (s *Swarm) startManager(ctx context.Context) error {
	var seeds strings.Builder
	for _, h := range s.Web.Hosts {
		seeds.WriteString(h.URL + "\n")
	}
	seedFile := filepath.Join(s.cfg.Dir, "seeds.txt")
	if err := writeFile(seedFile, seeds.String()); err != nil {
		return err
	}
	var extra []string
	if !s.cfg.DeferSeeds {
		extra = []string{"--seeds", seedFile}
	}
	m, base, err := s.newManager("manager", extra...)
	if err != nil {
		return err
	}
	s.Manager, s.Managers = m, []*Manager{m}
	if err := m.Start(ctx); err != nil {
		return err
	}
	// Later starts must not import the seeds again.
	m.SetArgs(base...)
	return nil
}

// startSharingManager starts manager i (from 1), which shares the first
// one's database and key, and waits until the first one's profile, which
// the clients join with, names it too.
func (s *Swarm) startSharingManager(ctx context.Context, i int) error {
	name := fmt.Sprintf("manager-%d", i)
	m, _, err := s.newManager(name)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(filepath.Join(s.Manager.Dir(), manager.KeyFile))
	if err != nil {
		return fmt.Errorf("%s: the first manager's key: %w", name, err)
	}
	if err := os.MkdirAll(m.Dir(), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(m.Dir(), manager.KeyFile), key, 0o600); err != nil {
		return err
	}
	s.Managers = append(s.Managers, m)
	if err := m.Start(ctx); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, s.cfg.Ready)
	defer cancel()
	suffix := strings.TrimPrefix(m.Listen, "/ip4/127.0.0.1") + "/p2p/"
	err = poll(rctx, 200*time.Millisecond, func() (bool, error) {
		p, err := profile.Read(s.Manager.Profile)
		if err != nil {
			return false, nil
		}
		return slices.ContainsFunc(p.Bootstrap, func(a string) bool { return strings.Contains(a, suffix) }), nil
	})
	if err != nil {
		return fmt.Errorf("wait for the profile to name %s: %w", name, err)
	}
	return nil
}

// Start starts the manager and waits until its API answers.
func (m *Manager) Start(ctx context.Context) error {
	if err := m.Proc.Start(); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, m.s.cfg.Ready)
	defer cancel()
	err := poll(rctx, 100*time.Millisecond, func() (bool, error) {
		if !m.Running() {
			return false, fmt.Errorf("manager exited: %v (see %s)", m.Err(), m.log)
		}
		info, err := loopback.ReadInfo(filepath.Join(m.Dir(), manager.APIFile))
		if err != nil || info.PID != m.PID() {
			return false, nil
		}
		var st operator.Status
		if err := getJSON(rctx, m.http, info.URL+"/api/status", info.Token, &st); err != nil {
			return false, nil
		}
		m.API, m.Profile = info, st.Profile
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("wait for the manager: %w", err)
	}
	m.s.log.Info("Manager started", "pid", m.PID(), "api", m.API.URL)
	return nil
}

// fixedPort returns a free TCP port on 127.0.0.1 below the system's
// ephemeral range (internal/keptport), which stays the manager's across
// restarts.
func fixedPort() (int, error) { return keptport.Free("127.0.0.1") }

// Status returns the manager's status.
func (m *Manager) Status(ctx context.Context) (operator.Status, error) {
	var st operator.Status
	if err := getJSON(ctx, m.http, m.API.URL+"/api/status", m.API.Token, &st); err != nil {
		return st, fmt.Errorf("manager status: %w", err)
	}
	return st, nil
}

// WaitCrawled waits until the manager has a result stored for every
// channel.
func (s *Swarm) WaitCrawled(ctx context.Context) error {
	var st operator.Status
	err := poll(ctx, time.Second, func() (bool, error) {
		var err error
		st, err = s.Manager.Status(ctx)
		return err == nil && st.Channels > 0 && st.Crawled == st.Channels, nil
	})
	if err != nil {
		return fmt.Errorf("wait for every channel to be crawled (%d of %d): %w", st.Crawled, st.Channels, err)
	}
	return nil
}
