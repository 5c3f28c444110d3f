package swarm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/testkit/testbin"
)

// bin is the hivecrawl binary built once for the package's tests.
var bin string

func TestMain(m *testing.M) {
	// The clients read UPower on the system bus: not the machine's, so a
	// laptop on battery does not pause the swarm.
	os.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/hivecrawl-test-no-system-bus")
	dir, err := os.MkdirTemp("", "swarm-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bin, err = testbin.Program(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }

func startSwarm(t *testing.T, cfg Config) *Swarm {
	t.Helper()
	cfg.Bin, cfg.Dir, cfg.Logger = bin, t.TempDir(), testLogger(t)
	// A volunteer's client takes the lowest CPU priority. Beside a suite
	// compiling at normal priority (a cold run), the clients got next to
	// no CPU for minutes, and their tasks expired unstarted (TestChurn:
	// 116 and 149 tasks failed in two cold runs): that tests the
	// machine's load, not the swarm. The CPU hog beside every run still
	// competes with them.
	cfg.ClientArgs = append(slices.Clip(cfg.ClientArgs), "--normal-priority")
	if keep := os.Getenv("HIVECRAWL_SWARM_KEEP"); keep != "" {
		// Keep every process's data and debug-level log for a post-mortem.
		cfg.Dir = filepath.Join(keep, t.Name())
		if err := os.RemoveAll(cfg.Dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		cfg.ClientArgs = append(cfg.ClientArgs, "-v")
		cfg.ManagerArgs = append(slices.Clip(cfg.ManagerArgs), "-v")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Close(ctx); errors.Is(err, ErrKilled) {
			t.Errorf("close swarm: %v", err)
		} else if err != nil {
			t.Logf("close swarm: %v", err)
		}
		if t.Failed() {
			dumpLogs(t, s.Dir())
		}
	})
	return s
}

// dumpLogs shows the end of every process log of a failed test.
func dumpLogs(t *testing.T, dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if len(b) > 3000 {
			b = b[len(b)-3000:]
		}
		t.Logf("--- %s\n%s", filepath.Base(l), b)
	}
}

// TestProcesses starts a small swarm, checks every part answers, kills and
// restarts a client and the manager, and stops everything.
func TestProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	s := startSwarm(t, Config{Peers: 2, Hosts: 5, Seed: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if len(s.Web.Hosts) != 5 || s.Web.Hosts[2].Addr[:10] != "127.0.1.3:" {
		t.Fatalf("web hosts %+v, want 5 on 127.0.1.x", s.Web.Hosts)
	}
	st, err := s.Manager.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Channels != 5 {
		t.Fatalf("manager has %d channels, want one per host (5)", st.Channels)
	}
	for _, c := range s.Clients {
		if _, err := c.Status(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// A client killed without notice starts again on the same home.
	c := s.Clients[1]
	old := c.PID()
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if c.Running() {
		t.Fatal("killed client still running")
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if c.PID() == old || c.Runs() != 2 {
		t.Fatalf("restarted client pid %d (was %d), runs %d", c.PID(), old, c.Runs())
	}

	// The manager killed and restarted keeps its address, channels and
	// does not import the seeds twice.
	if err := s.Manager.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := s.Manager.Start(ctx); err != nil {
		t.Fatal(err)
	}
	st, err = s.Manager.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Channels != 5 {
		t.Fatalf("after restart the manager has %d channels, want 5", st.Channels)
	}
	found := false
	for _, a := range st.Addrs {
		found = found || len(a) >= len(s.Manager.Listen) && a[:len(s.Manager.Listen)] == s.Manager.Listen
	}
	if !found {
		t.Fatalf("restarted manager listens on %v, want %s", st.Addrs, s.Manager.Listen)
	}

	// A graceful stop ends the process by itself.
	if err := s.Clients[0].Stop(ctx); errors.Is(err, ErrKilled) {
		t.Fatalf("graceful stop: %v", err)
	} else if err != nil {
		t.Logf("graceful stop: %v", err)
	}
	if err := s.Clients[0].Stop(ctx); err == nil {
		t.Fatal("stopping a stopped client succeeded")
	}
	stats, err := s.Web.Stats(ctx, &http.Client{})
	if err != nil || len(stats) != 5 {
		t.Fatalf("web stats %v, %v", stats, err)
	}
}

// TestFixedPortOutsideEphemeralRange: the manager's port is free and
// below the system's ephemeral range, where no connection's source port
// and no listener on port 0 can take it while the manager is down.
func TestFixedPortOutsideEphemeralRange(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skip("no ip_local_port_range to check against")
	}
	low, err := strconv.Atoi(strings.Fields(string(b))[0])
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		port, err := fixedPort()
		if err != nil {
			t.Fatal(err)
		}
		if port >= low || port < 1024 {
			t.Fatalf("port %d, want one below the ephemeral range's %d", port, low)
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatalf("port %d not free: %v", port, err)
		}
		l.Close()
	}
}
