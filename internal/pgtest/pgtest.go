// Package pgtest starts a throwaway PostgreSQL server for a test: a new
// cluster in a temporary directory (initdb), listening only on a Unix
// socket there, stopped and removed when the test ends. It uses Debian's
// server binaries (/usr/lib/postgresql/N/bin, or pg_config --bindir).
// Where they are absent the test is skipped, unless the CI variable is
// set, when it fails: CI installs them (scripts/test.sh).
//
// PostgreSQL refuses to run as root, so a root test runs the server as
// the postgres user when there is one, otherwise as nobody.
package pgtest

import (
	"bytes"
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
	DSN       string
	bin, data string
	cred      *syscall.Credential
}

// Start starts a server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL server: %v", err)
		}
		t.Skipf("PostgreSQL server not installed (%v); install Debian's postgresql package, or set CI to make this a failure", err)
	}
	// A short path: a Unix socket's name must fit in 107 bytes.
	dir, err := os.MkdirTemp("", "pg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{bin: bin, data: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 {
		s.cred = runAs()
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	s.run(t, "initdb", "-D", s.data, "-U", "hivecrawl", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C")
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c max_connections=200", dir)
	s.run(t, "pg_ctl", "start", "-w", "-t", "60", "-D", s.data, "-l", filepath.Join(dir, "log"), "-o", opts)
	t.Cleanup(func() {
		cmd := s.cmd("pg_ctl", "stop", "-m", "immediate", "-D", s.data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("stop PostgreSQL: %v\n%s", err, out)
		}
	})
	s.DSN = fmt.Sprintf("host=%s user=hivecrawl dbname=postgres sslmode=disable", dir)
	return s
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

func (s *Server) run(t testing.TB, name string, args ...string) {
	t.Helper()
	start := time.Now()
	var out bytes.Buffer
	cmd := s.cmd(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s\n%s", name, err, out.String(), s.Logs())
	}
	t.Logf("%s took %v", name, time.Since(start).Round(time.Millisecond))
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
	return "", fmt.Errorf("no initdb under /usr/lib/postgresql/*/bin or pg_config --bindir")
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
