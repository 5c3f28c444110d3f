package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestFinishThenPause: "finish, then pause" lets the running crawl end
// and starts no other: the client then pauses, the tasks it did not start
// wait in its queue, and after Resume they run. No task is lost or cut.
func TestFinishThenPause(t *testing.T) {
	var (
		mu    sync.Mutex
		sites = map[string]bool{} // sites asked for a page
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		sites[strings.Join(strings.SplitN(r.URL.Path, "/", 4)[:3], "/")] = true
		mu.Unlock()
		time.Sleep(150 * time.Millisecond) // a crawl takes about half a second
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>Some words about %s.</p>", r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			fmt.Fprint(w, `<a href="a.html">a</a> <a href="b.html">b</a>`)
		}
		fmt.Fprint(w, "</body></html>")
	}))
	t.Cleanup(srv.Close)
	const n = 4
	home := t.TempDir()
	quietConfig(t, home, `, "threads": 1`)
	_, ctx := serveLocal(t, home, writeSeeds(t, srv, n))
	var (
		api *localapi.Client
		err error
	)
	eventually(t, "the local API", func() bool {
		api, err = localapi.Dial(filepath.Join(home, "config", "api.json"))
		return err == nil
	})
	results := func() int {
		m, _ := filepath.Glob(filepath.Join(home, "data", "results", "*.json"))
		return len(m)
	}
	eventually(t, "the first crawl running", func() bool {
		st, err := api.Status(ctx)
		return err == nil && len(st.Tasks.Running) == 1
	})
	st, err := api.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Finishing || st.State != "running" || len(st.Reasons) == 0 || !strings.HasPrefix(st.Reasons[0], "Finishing: no new task starts") {
		t.Fatalf("after finish: state %s, finishing %v, reasons %q", st.State, st.Finishing, st.Reasons)
	}
	eventually(t, "the pause once the running crawl ended", func() bool {
		st, err = api.Status(ctx)
		return err == nil && st.State == "paused" && !st.Finishing
	})
	if !strings.Contains(strings.Join(st.Reasons, "; "), "Paused by you") {
		t.Fatalf("paused with reasons %q, want the contributor's pause", st.Reasons)
	}
	time.Sleep(time.Second) // nothing more starts
	st, _ = api.Status(ctx)
	done := results()
	mu.Lock()
	asked := len(sites)
	mu.Unlock()
	if done == 0 || done >= n || len(st.Tasks.Running) != 0 || st.Tasks.Queued != n-done || asked != done {
		t.Fatalf("paused after finishing: %d results, %d running, %d queued, %d sites asked; want the crawl that ran finished, the other %d queued and not begun",
			done, len(st.Tasks.Running), st.Tasks.Queued, asked, n-done)
	}
	t.Logf("finished %d of %d crawls, %d waiting", done, n, st.Tasks.Queued)
	if _, err := api.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every crawl after resume", func() bool { return results() == n })
	// Not crawling, and nothing else says why: the status does.
	eventually(t, "the idle reason", func() bool {
		st, err := api.Status(ctx)
		return err == nil && slices.Contains(st.Reasons, "Idle: every task is done")
	})
}

// TestPausedAtStartStartsNothing: a client started under the contributor's
// pause starts no task (to wait at its first request holding its site's
// lease); its tasks wait in the queue and run after Resume.
func TestPausedAtStartStartsNothing(t *testing.T) {
	var asked atomic.Int32
	srv := smallSites(t)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(counting.Close)
	const n = 3
	home := t.TempDir()
	quietConfig(t, home, `, "paused": true`)
	c, ctx := serveLocal(t, home, writeSeeds(t, counting, n))
	eventually(t, "the seeds queued", func() bool {
		st, err := c.Status(ctx)
		return err == nil && st.Tasks.Queued == n
	})
	time.Sleep(time.Second)
	st, err := c.Status(ctx)
	if err != nil || len(st.Tasks.Running) != 0 || st.Tasks.Queued != n || asked.Load() != 0 {
		t.Fatalf("paused from the start: %d running, %d queued, %d requests (%v); want none running, %d queued, none asked",
			len(st.Tasks.Running), st.Tasks.Queued, asked.Load(), err, n)
	}
	if err := c.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every task after resume", func() bool {
		st, err := c.Status(ctx)
		return err == nil && st.Tasks.Queued == 0 && len(st.Tasks.Running) == 0 && asked.Load() > 0
	})
}
