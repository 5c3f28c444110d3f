package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// quiet is the tests' logger: silent, or, with HIVECRAWL_TEST_LOG set to
// a file, every record at debug level appended there (to read after a
// failure the test output does not explain).
var quiet = testLogger()

func testLogger() *slog.Logger {
	path := os.Getenv("HIVECRAWL_TEST_LOG")
	if path == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil { // a child running as another user, say
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// smallSites serves /s/N/ indexes linking to two pages each.
func smallSites(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>Some words about %s for the index.</p>", r.URL.Path, r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			fmt.Fprint(w, `<a href="a.html">a</a> <a href="b.html">b</a>`)
		}
		fmt.Fprint(w, "</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeSeeds(t *testing.T, srv *httptest.Server, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s/s/%d/\n", srv.URL, i)
	}
	path := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveLocal starts a local-mode client in home on the seeds file, as the
// tests of one client do, serving until the test ends (then it checks that
// Serve ended without error), and returns it with its serving context.
func serveLocal(t *testing.T, home, seeds string) (*Client, context.Context) {
	t.Helper()
	c, err := New(context.Background(), Options{
		Home: home, Mode: ModeLocal, Seeds: seeds, AllowLoopback: true,
		SeedTasks: SeedTasks{Delay: time.Millisecond, MaxDepth: 1}, Logger: quiet, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	return c, ctx
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// quietConfig writes a configuration that never pauses for other
// programs' load or caps the client's CPU: the test machine is shared.
func quietConfig(t *testing.T, home string, extra string) {
	t.Helper()
	dir := filepath.Join(home, "config")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"busy_threshold": 0, "cpu": 0`+extra+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestClientEndToEnd(t *testing.T) {
	srv := smallSites(t)
	home := t.TempDir()
	quietConfig(t, home, "")
	opts := Options{
		Home: home, Mode: ModeLocal, Seeds: writeSeeds(t, srv, 7), AllowLoopback: true,
		SeedTasks: SeedTasks{Delay: time.Millisecond, MaxDepth: 1}, Logger: quiet, Version: "test",
	}
	ctx := context.Background()
	c, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- c.Serve(sctx) }()

	// Everything below goes through the local API, as the CLI and tray do.
	var api *localapi.Client
	eventually(t, "the local API", func() bool {
		api, err = localapi.Dial(filepath.Join(home, "config", "api.json"))
		return err == nil
	})
	// Local receipts credit one (pending, never confirmed) unit per page.
	eventually(t, "seven results in the ledger", func() bool {
		st, err := api.Status(ctx)
		return err == nil && st.Credits.Pending == 21
	})
	st, err := api.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages.Total != 21 || st.Pages.Today != 21 || st.Credits.Confirmed != 0 || st.Tasks.Threads != config.DefaultThreads ||
		st.Version != "test" || st.State != "running" {
		t.Fatalf("status %+v, want 21 pages (7 sites × 3), 3 threads, running", st)
	}
	// Pause and resume reach the governor, with a reason in words.
	if _, err := api.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := api.Status(ctx); st.State != "paused" || len(st.Reasons) == 0 || !strings.Contains(st.Reasons[0], "Paused by you") {
		t.Fatalf("after pause: %s %q", st.State, st.Reasons)
	}
	if _, err := api.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := api.Status(ctx); st.State != "running" {
		t.Fatalf("after resume: %s %q", st.State, st.Reasons)
	}
	// A setting changes the task manager and queue live, and is saved.
	if _, err := api.SetConfig(ctx, localapi.Change{Key: "threads", Value: "1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Settings().Update(func(cfg *config.Config) error { cfg.QueueLength = 2; return nil }); err != nil {
		t.Fatal(err)
	}
	eventually(t, "threads setting applied", func() bool {
		st, err := api.Status(ctx)
		return err == nil && st.Tasks.Threads == 1 && c.q.MaxLen() == 2
	})
	if _, err := api.SetConfig(ctx, localapi.Change{Key: "threads", Value: "-4"}); err == nil {
		t.Fatal("invalid setting accepted")
	}
	if saved, err := config.Load(filepath.Join(home, "config", "config.json")); err != nil || saved.Threads != 1 {
		t.Fatalf("saved threads %d, %v", saved.Threads, err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}

	// The results are kept with local receipts, one per task.
	matches, _ := filepath.Glob(filepath.Join(home, "data", "results", "*.json"))
	if len(matches) != 7 {
		t.Fatalf("%d results kept, want 7", len(matches))
	}
	b, _ := os.ReadFile(matches[0])
	var res LocalResult
	if err := json.Unmarshal(b, &res); err != nil || res.Receipt.Kind != LocalReceiptKind || res.Receipt.Pages != 3 {
		t.Fatalf("kept result %s: %v", b, err)
	}

	// A restart submits nothing again in the same round.
	c2, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { served <- c2.Serve(ctx2) }()
	time.Sleep(3 * feedEvery)
	cancel2()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(filepath.Join(home, "data", "queue.db"), queue.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	all, _ := q.Select(func(*queue.Record) bool { return true })
	if len(all) != 7 {
		t.Fatalf("%d tasks after a restart, want the same 7", len(all))
	}
}

func TestNewReportsBadSeeds(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("http://ok.example/\nnot a url\n"), 0o600)
	_, err := New(context.Background(), Options{Home: t.TempDir(), Seeds: seeds, Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), seeds) {
		t.Fatalf("New = %v, want an error naming the file and line 2", err)
	}
}

func TestLocalUploaderIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	spool := filepath.Join(dir, "a.spool")
	sp, err := crawler.OpenSpool(spool)
	if err != nil {
		t.Fatal(err)
	}
	sp.Page(&task.Page{URL: "http://x.example/", Status: 200})
	sp.Close()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	u := &LocalUploader{Dir: filepath.Join(dir, "results"), Now: func() time.Time { return now }}
	d := taskmgr.Delivery{TaskID: "a/b", Channel: "x.example/", Spool: spool, Result: &task.Result{Stats: task.Stats{PagesFetched: 1}}}
	info, err := os.Stat(spool)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := u.Upload(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	// Moved, not copied: a delivery adds nothing to what the client
	// keeps, which the disk limits read once the crawl ended.
	kept := u.SpoolPath("a/b")
	if _, err := os.Stat(spool); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the delivered spool is still in the spool folder: %v", err)
	}
	if k, err := os.Stat(kept); err != nil || k.Size() != info.Size() {
		t.Fatalf("kept spool: %v, %v; want %d bytes", k, err, info.Size())
	}
	now = now.Add(time.Hour)
	r2, err := u.Upload(context.Background(), d)
	if err != nil || string(r1) != string(r2) {
		t.Fatalf("repeated delivery: receipt %s then %s (%v); want the first again", r1, r2, err)
	}
	var rc LocalReceipt
	if err := json.Unmarshal(r1, &rc); err != nil || rc.Kind != LocalReceiptKind || rc.TaskID != "a/b" || rc.Pages != 1 {
		t.Fatalf("receipt %s", r1)
	}
	n := 0
	if err := crawler.ReadSpool(kept, func(*task.Page) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("kept spool: %d pages, %v", n, err)
	}
	// A delivery cut short after the move, before its JSON file: the
	// next one finds the spool moved and completes.
	if err := os.Remove(filepath.Join(dir, "results", resultName("a/b")+".json")); err != nil {
		t.Fatal(err)
	}
	r3, err := u.Upload(context.Background(), d)
	if err != nil {
		t.Fatalf("a delivery after one cut short past the move: %v", err)
	}
	if err := json.Unmarshal(r3, &rc); err != nil || rc.Bytes != info.Size() || rc.Pages != 1 {
		t.Fatalf("receipt after a delivery cut short: %s", r3)
	}
	if _, err := u.Upload(context.Background(), taskmgr.Delivery{TaskID: "missing", Spool: filepath.Join(dir, "none")}); err == nil {
		t.Fatal("upload of a missing spool succeeded")
	}
}

func TestGracefulShutdownHandsOver(t *testing.T) {
	// Four hosts: one task per host runs at a time.
	srvs := []*httptest.Server{smallSites(t), smallSites(t), smallSites(t), smallSites(t)}
	var seeds strings.Builder
	for i := range 12 {
		fmt.Fprintf(&seeds, "%s/s/%d/\n", srvs[i%len(srvs)].URL, i)
	}
	seedFile := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(seedFile, []byte(seeds.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// Snoozed: running tasks wait at the governor's gate and the queue
	// fills. (Under the contributor's pause no task would start at all.)
	quietConfig(t, home, `, "snooze_until": "2099-01-01T00:00:00Z"`)
	var got []*queue.Record
	opts := Options{
		Home: home, Mode: ModeLocal, Seeds: seedFile, AllowLoopback: true, Logger: quiet,
		SeedTasks: SeedTasks{Delay: time.Millisecond, MaxDepth: 1},
		Handover:  func(ctx context.Context, rs []*queue.Record) error { got = rs; return nil },
	}
	c, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx) }()
	eventually(t, "3 running and 5 queued", func() bool {
		st, err := c.Status(ctx)
		return err == nil && len(st.Tasks.Running) == 3 && st.Tasks.Queued == 5 && st.State == "paused"
	})
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 {
		t.Fatalf("handed over %d tasks, want 3 running and 5 queued", len(got))
	}
	for _, r := range got {
		if _, err := task.Decode(r.Raw); err != nil {
			t.Fatalf("handed-over task %s: raw bytes do not decode: %v", r.ID, err)
		}
	}
	q, err := queue.Open(filepath.Join(home, "data", "queue.db"), queue.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	left, _ := q.Select(func(r *queue.Record) bool { return r.State != queue.HandedOver })
	if len(left) != 0 {
		t.Fatalf("%d tasks not marked handed over", len(left))
	}
}
