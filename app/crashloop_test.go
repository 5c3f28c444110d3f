package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestHelperClientUntilKilled is a client process in local mode that runs
// until killed, for tests that crash it or read its memory from outside
// (TestCrashLoopSetsTaskAside, TestHostileHostsBoundedClientMemory); it
// does nothing in a normal test run.
func TestHelperClientUntilKilled(t *testing.T) {
	home := os.Getenv("HIVECRAWL_TEST_CRASH_HOME")
	if home == "" {
		t.Skip("run by tests that start client processes")
	}
	ctx := context.Background()
	st := SeedTasks{Delay: time.Millisecond, MaxDepth: 1}
	if d, err := time.ParseDuration(os.Getenv("HIVECRAWL_TEST_DELAY")); err == nil {
		st.Delay = d
	}
	if n, err := strconv.Atoi(os.Getenv("HIVECRAWL_TEST_DEPTH")); err == nil {
		st.MaxDepth, st.MaxPages = n, 10000
	}
	c, err := New(ctx, Options{
		Home: home, Mode: ModeLocal, Seeds: os.Getenv("HIVECRAWL_TEST_CRASH_SEEDS"), AllowLoopback: true,
		SeedTasks: st, Logger: quiet, Version: "test", SoftMemoryLimit: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	// SIGTERM stops it gracefully, as the tray's Quit does.
	sctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	if err := c.Serve(sctx); err != nil {
		t.Error(err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}

// helperClient starts TestHelperClientUntilKilled from the test binary
// bin as a client process of home crawling the seeds file, with env
// added to its environment; its output goes to out.
func helperClient(t *testing.T, bin, home, seeds string, out io.Writer, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestHelperClientUntilKilled$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), "HIVECRAWL_TEST_CRASH_HOME="+home, "HIVECRAWL_TEST_CRASH_SEEDS="+seeds), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// A page that kills the client each time it is processed is not fetched
// forever: the client dies (here: is killed) while it parses the page, and
// after queue.DefaultMaxCrashes such deaths in a row its task is set aside,
// with the reason in the status, and the next start leaves the site alone.
// The test kills the client exactly then: when the task's spool ends in
// the mark the crawler writes before it processes a page.
func TestCrashLoopSetsTaskAside(t *testing.T) {
	if testing.Short() {
		t.Skip("starts client processes")
	}
	// 10 MiB of unclosed links: a page that takes a while to parse.
	body := []byte(strings.Repeat(`<a href>`, (10<<20)/8))
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write(body)
	}))
	defer srv.Close()
	home := t.TempDir()
	quietConfig(t, home, "")
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte(srv.URL+"/\n"), 0o600)

	start := func() *exec.Cmd {
		var out strings.Builder
		// A real politeness wait: the page is processed over a second
		// into the task (queue.MinCrashLife).
		cmd := helperClient(t, os.Args[0], home, seeds, &out, "HIVECRAWL_TEST_DELAY=1200ms")
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			if t.Failed() {
				t.Logf("client output:\n%s", out.String())
			}
		})
		return cmd
	}
	processing := func() bool {
		spools, _ := filepath.Glob(filepath.Join(home, "data", "spool", "*.spool"))
		for _, sp := range spools {
			if _, dying, _, err := crawler.SpoolState(sp); err == nil && dying {
				return true
			}
		}
		return false
	}
	for i := 1; i <= 3; i++ {
		cmd := start()
		// The last run's spool ends in its mark until this run starts the
		// task again: first its request, then its mark.
		eventuallyFor(t, 2*time.Minute, fmt.Sprintf("the page fetched in run %d", i), func() bool { return hits.Load() >= int64(i) })
		eventuallyFor(t, 2*time.Minute, fmt.Sprintf("the page processed in run %d", i), processing)
		cmd.Process.Kill()
		cmd.Wait()
		os.Remove(filepath.Join(home, "config", "api.json"))
	}
	if n := hits.Load(); n != 3 {
		t.Fatalf("%d requests in three runs, want 3", n)
	}

	start()
	var st localapi.Status
	eventually(t, "the task set aside in the status", func() bool {
		api, err := localapi.Dial(filepath.Join(home, "config", "api.json"))
		if err != nil {
			return false
		}
		st, err = api.Status(context.Background())
		return err == nil && len(st.Tasks.SetAside) > 0
	})
	a := st.Tasks.SetAside[0]
	if len(st.Tasks.SetAside) != 1 || !strings.Contains(a.Reason, "3 times") || a.Channel == "" {
		t.Errorf("set aside %+v, want one task naming its channel and the 3 crashes", st.Tasks.SetAside)
	}
	if len(st.Tasks.Running) != 0 || st.Tasks.Queued != 0 {
		t.Errorf("%d running, %d queued: the task set aside was submitted again", len(st.Tasks.Running), st.Tasks.Queued)
	}
	if n := hits.Load(); n != 3 {
		t.Errorf("%d requests to the page, want 3: the client crawled a task set aside", n)
	}
}
