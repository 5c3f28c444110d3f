// Package pgtest starts a throwaway PostgreSQL server for a test: a new
// cluster in a temporary directory (initdb), listening only on a Unix
// socket there, stopped and removed when the test ends. It uses Debian's
// server binaries (/usr/lib/postgresql/N/bin, or pg_config --bindir);
// New starts one for a benchmark program. Where they are absent a test is
// skipped, unless the CI variable is
// set, when it fails: CI installs them (scripts/test.sh).
//
// PostgreSQL refuses to run as root, so a root test runs the server as
// the postgres user when there is one, otherwise as nobody.
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a running PostgreSQL server.
type Server struct {
	// DSN reaches the server's postgres database as its superuser.
	DSN            string
	bin, dir, data string
	cred           *syscall.Credential
	logf           func(format string, args ...any)
}

// Start starts a server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := New(t.Logf)
	if errors.Is(err, ErrNotInstalled) {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL server: %v", err)
		}
		t.Skipf("PostgreSQL server not installed (%v); install Debian's postgresql package, or set CI to make this a failure", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Log(err)
		}
	})
	return s
}

// ErrNotInstalled: no PostgreSQL server binaries were found.
var ErrNotInstalled = errors.New("PostgreSQL server not installed")

// New starts a server, logging its steps' times with logf; Stop stops it
// and removes its files.
func New(logf func(format string, args ...any)) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	// A short path: a Unix socket's name must fit in 107 bytes.
	dir, err := os.MkdirTemp("", "pg")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data"), logf: logf}
	if os.Geteuid() == 0 {
		s.cred = runAs()
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := s.run("initdb", "-D", s.data, "-U", "hivecrawl", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c max_connections=200", dir)
	if err := s.run("pg_ctl", "start", "-w", "-t", "60", "-D", s.data, "-l", filepath.Join(dir, "log"), "-o", opts); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.DSN = fmt.Sprintf("host=%s user=hivecrawl dbname=postgres sslmode=disable", dir)
	return s, nil
}

// Stop stops the server at once and removes its files.
func (s *Server) Stop() error {
	defer os.RemoveAll(s.dir)
	if out, err := s.cmd("pg_ctl", "stop", "-m", "immediate", "-D", s.data).CombinedOutput(); err != nil {
		return fmt.Errorf("stop PostgreSQL: %v\n%s", err, out)
	}
	return nil
}

// Logs returns the server's log so far.
func (s *Server) Logs() string {
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(s.data), "log"))
	return string(b)
}

func (s *Server) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

func (s *Server) run(name string, args ...string) error {
	start := time.Now()
	var out bytes.Buffer
	cmd := s.cmd(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s\n%s", name, err, out.String(), s.Logs())
	}
	s.logf("%s took %v", name, time.Since(start).Round(time.Millisecond))
	return nil
}

// binDir finds the newest installed server's binaries.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: no initdb under /usr/lib/postgresql/*/bin or pg_config --bindir", ErrNotInstalled)
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// runAs is the postgres user, or nobody.
func runAs() *syscall.Credential {
	if u, err := user.Lookup("postgres"); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return &syscall.Credential{Uid: 65534, Gid: 65534}
}
