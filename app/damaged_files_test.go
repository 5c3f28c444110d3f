package app

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/testkit/testbin"
)

// lockedBuffer is a log destination safe for the client's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Each file a client keeps, damaged each way a disk or a crash damages
// files: the client never panics, and either starts (the file moved aside
// or replaced, with a log line naming it) or fails with an error naming it.
func TestClientDamagedFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts many clients")
	}
	srv := smallSites(t)
	seeds := writeSeeds(t, srv, 2)
	opts := func(home string, log *slog.Logger) Options {
		return Options{Home: home, Mode: ModeLocal, Seeds: seeds, AllowLoopback: true,
			SeedTasks: SeedTasks{Delay: time.Millisecond, MaxDepth: 1}, Logger: log, Version: "test"}
	}
	// A home with every file a local client keeps.
	good := t.TempDir()
	quietConfig(t, good, `, "download": "1MB/s"`)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(ctx, opts(good, quiet))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx) }()
	eventually(t, "both results", func() bool {
		m, _ := filepath.Glob(filepath.Join(good, "data", "results", "*.json"))
		return len(m) == 2
	})
	cancel()
	<-done
	c.Close()

	files := []string{"config/config.json", "data/queue.db", "data/ledger.db", "data/usage.json", "data/seeds-round.json"}
	damages := []struct {
		name   string
		damage func(path string) error
	}{
		{"truncated", func(p string) error {
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, fi.Size()/2)
		}},
		{"garbage in the middle", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			// A bbolt file: every page past the two meta pages (the live
			// ones can be anywhere); another file: its middle third.
			from, to := len(b)/3, 2*len(b)/3+1
			if len(b) > 16<<10 {
				from, to = 8<<10, len(b)
			}
			for i := from; i < min(to, len(b)); i++ {
				b[i] ^= 0x5a
			}
			return os.WriteFile(p, b, 0o600)
		}},
		{"zero length", func(p string) error { return os.Truncate(p, 0) }},
		{"a directory in its place", func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.MkdirAll(filepath.Join(p, "x"), 0o700)
		}},
	}
	for _, file := range files {
		t.Run(file+"/unreadable", func(t *testing.T) { unreadableClientFile(t, good, seeds, file) })
		for _, d := range damages {
			t.Run(file+"/"+d.name, func(t *testing.T) {
				home := t.TempDir()
				copyTree(t, good, home)
				path := filepath.Join(home, file)
				if err := d.damage(path); err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(file, ".db") && boltfile.Check(path) == nil {
					// The damage hit only pages bbolt does not use: the
					// file is as good as it was, and starting without a
					// word is right.
					t.Logf("%s: the damage hit no page in use", file)
					return
				}
				var logs lockedBuffer
				log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
				name := filepath.Base(file)
				var c *Client
				err := func() (err error) {
					defer func() {
						if p := recover(); p != nil {
							err = fmt.Errorf("panic: %v", p)
							t.Errorf("New panicked: %v", p)
						}
					}()
					c, err = New(context.Background(), opts(home, log))
					return err
				}()
				if err != nil {
					if !strings.Contains(err.Error(), name) {
						t.Errorf("New failed without naming %s: %v", name, err)
					}
					return
				}
				defer c.Close()
				if !strings.Contains(logs.String(), name) {
					t.Errorf("started with %s damaged and said nothing naming it; log:\n%s", file, logs.String())
				}
				if st, err := c.Status(context.Background()); err != nil {
					t.Errorf("status after starting: %v", err)
				} else if st.Download.Cap != 1_000_000 && st.State != "paused" {
					t.Errorf("running with download cap %d: the contributor's 1MB/s was lost", st.Download.Cap)
				}
			})
		}
	}
}

// permChild, set in a child's environment, names the home whose client
// TestPermissionChild starts, and
// permSeeds its seeds file.
const (
	permChild = "HIVECRAWL_TEST_PERMISSION_HOME"
	permSeeds = "HIVECRAWL_TEST_PERMISSION_SEEDS"
)

// unreadableClientFile starts a client, as a user other than root (root
// reads any file), over a copy of home whose file has mode 0000: the
// client does not panic, and it either starts with a line naming the file
// and the contributor's limits kept, or fails with an error naming it.
func unreadableClientFile(t *testing.T, good, seeds, file string) {
	dir, err := os.MkdirTemp("", "hivecrawl-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	copyTree(t, good, home)
	b, err := os.ReadFile(seeds)
	if err != nil {
		t.Fatal(err)
	}
	seeds = filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testbin.WithoutRace(t, raceEnabled), "-test.run=^TestPermissionChild$", "-test.v")
	cmd.Env = append(os.Environ(), permChild+"="+home, permSeeds+"="+seeds)
	testbin.AsUser(t, cmd, dir)
	if err := os.Chmod(filepath.Join(home, file), 0); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	text := string(out)
	name := filepath.Base(file)
	switch {
	case strings.Contains(text, "panic:"):
		t.Fatalf("the client panicked over an unreadable %s:\n%s", file, text)
	case strings.Contains(text, "STARTED") && err == nil:
		if !strings.Contains(text, name) {
			t.Errorf("started with %s unreadable and said nothing naming it:\n%s", file, text)
		}
		if !strings.Contains(text, "limits kept") {
			t.Errorf("started with %s unreadable and lost the contributor's download cap:\n%s", file, text)
		}
	case strings.Contains(text, "FAILED"):
		if !strings.Contains(text, name) {
			t.Errorf("failed without naming %s:\n%s", file, text)
		}
	default:
		t.Fatalf("child did not run (%v):\n%s", err, text)
	}
	t.Logf("%s unreadable: %s", file, lastLines(text, 3))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// TestPermissionChild is the child of unreadableClientFile.
func TestPermissionChild(t *testing.T) {
	home := os.Getenv(permChild)
	if home == "" {
		t.Skip("runs only as the child of TestClientDamagedFiles")
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := New(context.Background(), Options{Home: home, Mode: ModeLocal, Seeds: os.Getenv(permSeeds), AllowLoopback: true,
		SeedTasks: SeedTasks{Delay: time.Millisecond, MaxDepth: 1}, Logger: log, Version: "test"})
	if err != nil {
		fmt.Println("FAILED", err)
		return
	}
	defer c.Close()
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatalf("status after starting: %v", err)
	}
	fmt.Println("STARTED")
	if st.Download.Cap == 1_000_000 || st.State == "paused" {
		fmt.Println("limits kept")
	}
}
