package taskmgr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/task"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type harness struct {
	q      *queue.Queue
	m      *Manager
	dir    string
	cancel context.CancelFunc
	served chan error
}

func start(t *testing.T, q *queue.Queue, dir string, opts Options) *harness {
	t.Helper()
	opts.Queue, opts.SpoolDir, opts.Logger = q, filepath.Join(dir, "spool"), quiet
	if opts.MinBackoff == 0 {
		opts.MinBackoff, opts.MaxBackoff = time.Millisecond, 4*time.Millisecond
	}
	opts.Poll = 10 * time.Millisecond
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{q: q, m: m, dir: dir, cancel: cancel, served: make(chan error, 1)}
	go func() { h.served <- m.Serve(ctx) }()
	t.Cleanup(func() { h.stop(t) })
	return h
}

func (h *harness) stop(t *testing.T) {
	t.Helper()
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	if err := <-h.served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func openQueue(t *testing.T, dir string, maxLen int) *queue.Queue {
	t.Helper()
	q, err := queue.Open(filepath.Join(dir, "queue.db"), queue.Options{MaxLen: maxLen})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func submit(t *testing.T, m *Manager, ids ...string) {
	t.Helper()
	for _, id := range ids {
		tk := &task.Task{ID: id, Channel: id, Seeds: []string{"http://" + id + "/"}}
		raw, _ := tk.Encode()
		if err := m.Submit(raw, nil, tk); err != nil {
			t.Fatalf("submit %s: %v", id, err)
		}
	}
}

// eventually polls cond; the test's own timeout bounds it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func states(t *testing.T, q *queue.Queue) map[string]*queue.Record {
	t.Helper()
	rs, err := q.Select(func(*queue.Record) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*queue.Record{}
	for _, r := range rs {
		out[r.ID] = r
	}
	return out
}

func allRecorded(t *testing.T, q *queue.Queue, n int) func() bool {
	return func() bool {
		c := 0
		for _, r := range states(t, q) {
			if r.State == queue.Done && r.Upload == queue.UploadRecorded {
				c++
			}
		}
		return c == n
	}
}

func TestRunUploadWithRetries(t *testing.T) {
	for _, tc := range []struct {
		name        string
		uploadFails int
		ledgerFails int
	}{
		{name: "no failures"},
		{name: "upload fails 4 times", uploadFails: 4},
		{name: "upload and ledger fail", uploadFails: 2, ledgerFails: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			q := openQueue(t, dir, 10)
			up := &fakeUploader{fail: tc.uploadFails}
			rs := &receiptSink{fail: tc.ledgerFails}
			h := start(t, q, dir, Options{Runner: &fakeRunner{pages: 3}, Uploader: up, Receipts: rs})
			submit(t, h.m, "a", "b", "c", "d", "e")
			eventually(t, "all results recorded", allRecorded(t, q, 5))
			h.stop(t)
			up.mu.Lock()
			defer up.mu.Unlock()
			if up.calls != 5+tc.uploadFails {
				t.Fatalf("upload calls %d, want %d", up.calls, 5+tc.uploadFails)
			}
			for _, id := range []string{"a", "b", "c", "d", "e"} {
				if up.delivered[id] != 1 || up.pages[id] != 3 || rs.got[id] != "receipt:"+id {
					t.Fatalf("task %s: delivered %d times with %d pages, receipt %q", id, up.delivered[id], up.pages[id], rs.got[id])
				}
				if r, _ := q.Get(id); string(r.Receipt) != "receipt:"+id || r.Result.Stats.PagesFetched != 3 {
					t.Fatalf("task %s stored receipt %q result %+v", id, r.Receipt, r.Result)
				}
			}
			left, _ := os.ReadDir(filepath.Join(dir, "spool"))
			if len(left) != 0 {
				t.Fatalf("%d spool files left after upload", len(left))
			}
		})
	}
}

// TestRefusedResultNotSentAgain: a result the receiving end refused for
// good (ErrRefused) is not sent again: its spool goes, no receipt is kept,
// and the task's record ends.
func TestRefusedResultNotSentAgain(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	up := &fakeUploader{refuse: true}
	rs := &receiptSink{}
	h := start(t, q, dir, Options{Runner: &fakeRunner{pages: 2}, Uploader: up, Receipts: rs, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	submit(t, h.m, "a", "b")
	eventually(t, "both records ended", allRecorded(t, q, 2))
	h.stop(t)
	up.mu.Lock()
	defer up.mu.Unlock()
	if up.calls != 2 {
		t.Fatalf("upload calls %d; want 2, one a result", up.calls)
	}
	if len(rs.got) != 0 {
		t.Fatalf("receipts kept %v; want none", rs.got)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "spool")); len(left) != 0 {
		t.Fatalf("%d spool files left after refusals", len(left))
	}
}

// TestRetryNowEndsTheBackoff: results held while storage could not be
// reached go out as soon as RetryNow says it answers again, not after
// the backoff that built up meanwhile.
func TestRetryNowEndsTheBackoff(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	up := &fakeUploader{fail: 2}
	h := start(t, q, dir, Options{Runner: &fakeRunner{pages: 1}, Uploader: up, MinBackoff: time.Hour, MaxBackoff: time.Hour})
	submit(t, h.m, "a", "b")
	eventually(t, "both uploads failed once and wait", func() bool {
		st, _ := h.m.Status()
		up.mu.Lock()
		defer up.mu.Unlock()
		return up.calls == 2 && st.Uploading == 2
	})
	h.m.RetryNow()
	eventually(t, "both results delivered after RetryNow", allRecorded(t, q, 2))
	// The count drops once each delivery's goroutine has ended, just
	// after it recorded the receipt.
	eventually(t, "no delivery left", func() bool { st, _ := h.m.Status(); return st.Uploading == 0 })
}

func TestEffectiveThreads(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cl, ot, want int
	}{
		{"no threshold", 3, 0, 3},
		{"threshold above CL", 3, 5, 3},
		{"threshold equal", 3, 3, 3},
		{"CL drops to OT", 3, 2, 2},
		{"never zero", 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EffectiveThreads(tc.cl, tc.ot); got != tc.want {
				t.Fatalf("EffectiveThreads(%d, %d) = %d, want %d", tc.cl, tc.ot, got, tc.want)
			}
		})
	}
}

func TestThreadLimit(t *testing.T) {
	for _, tc := range []struct {
		name              string
		threads, overload int
		want              int
	}{
		{name: "default 3", want: 3},
		{name: "one", threads: 1, want: 1},
		{name: "OT below CL", threads: 4, overload: 2, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			q := openQueue(t, dir, 10)
			r := &fakeRunner{pages: 2, hold: make(chan struct{})}
			h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Threads: tc.threads, Overload: tc.overload})
			submit(t, h.m, "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7")
			for done := 0; done < 8; done++ {
				want := min(tc.want, 8-done)
				eventually(t, "threads busy", func() bool {
					st, err := h.m.Status()
					return err == nil && len(st.Running) == want && r.running() == want
				})
				if st, _ := h.m.Status(); st.Threads != tc.want {
					t.Fatalf("status threads %d, want %d", st.Threads, tc.want)
				}
				r.hold <- struct{}{}
			}
			eventually(t, "all recorded", allRecorded(t, q, 8))
			if p := r.maxSeen(); p != tc.want {
				t.Fatalf("peak concurrent runs %d, want %d", p, tc.want)
			}
		})
	}
}

func TestLiveThreadChange(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 2, hold: make(chan struct{})}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Threads: 1})
	submit(t, h.m, "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7")
	eventually(t, "one thread", func() bool { return r.running() == 1 })
	h.m.SetLimits(4, 0)
	eventually(t, "four threads after raising the limit", func() bool { return r.running() == 4 })
	h.m.SetLimits(2, 0)
	r.resetPeak()
	for range 4 { // finish the four running; at most 2 may start meanwhile
		r.hold <- struct{}{}
	}
	eventually(t, "two threads after lowering the limit", func() bool { return r.running() == 2 })
	r.hold <- struct{}{}
	r.hold <- struct{}{}
	eventually(t, "last two", func() bool { return r.running() == 2 })
	r.resetPeak()
	r.hold <- struct{}{}
	r.hold <- struct{}{}
	eventually(t, "all recorded", allRecorded(t, q, 8))
	if p := r.maxSeen(); p > 2 {
		t.Fatalf("peak %d after lowering the limit to 2", p)
	}
	h.m.SetLimits(0, 1) // OT 1 caps CL 2
	if st, _ := h.m.Status(); st.Threads != 1 {
		t.Fatalf("threads %d with OT 1", st.Threads)
	}
}

func TestLoadDependentFailuresCounted(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 2)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := &fakeRunner{pages: 1, hold: make(chan struct{})}
	rep := &recordingReporter{}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Threads: 1, Now: clock, Reporter: rep})
	submit(t, h.m, "running")
	eventually(t, "running", func() bool { return r.running() == 1 })
	short := &task.Task{ID: "short", Seeds: []string{"http://s/"}, Interval: task.Duration(time.Minute)}
	if err := h.m.Submit([]byte("envelope of short"), nil, short); err != nil {
		t.Fatal(err)
	}
	submit(t, h.m, "long")
	if err := h.m.Submit(nil, nil, &task.Task{ID: "refused", Seeds: []string{"http://r/"}}); !errors.Is(err, queue.ErrFull) {
		t.Fatalf("Submit to a full queue = %v", err)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	r.hold <- struct{}{}
	eventually(t, "long running", func() bool { return states(t, q)["long"].State == queue.Running })
	r.hold <- struct{}{}
	st, err := h.m.Status()
	if err != nil || st.Refused != 1 || st.Expired != 1 {
		t.Fatalf("status refused %d expired %d (%v), want 1 and 1", st.Refused, st.Expired, err)
	}
	if s := states(t, q)["short"]; s.State != queue.Cancelled || s.Reason != queue.ReasonExpired {
		t.Fatalf("short task %s %q", s.State, s.Reason)
	}
	eventually(t, "the expired task reported", func() bool { return len(rep.got()) == 1 })
	if got := rep.got(); string(got[0]) != "envelope of short" {
		t.Fatalf("reported %q, want the expired task's envelope", got)
	}
}

// recordingReporter keeps what it was told.
type recordingReporter struct {
	mu  sync.Mutex
	raw [][]byte
}

func (r *recordingReporter) Expired(_ context.Context, raw []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, raw)
	return nil
}

func (r *recordingReporter) got() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.raw...)
}

func TestFailedCrawlIsCancelled(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	up := &fakeUploader{}
	h := start(t, q, dir, Options{Runner: &fakeRunner{pages: 1, failIDs: map[string]bool{"bad": true}}, Uploader: up})
	submit(t, h.m, "bad", "good")
	eventually(t, "good recorded", allRecorded(t, q, 1))
	eventually(t, "bad cancelled", func() bool { return states(t, q)["bad"].State == queue.Cancelled })
	if reason := states(t, q)["bad"].Reason; reason != "crawl failed: robots.txt unavailable" {
		t.Fatalf("reason %q", reason)
	}
	if up.delivered["bad"] != 0 {
		t.Fatal("failed task was uploaded")
	}
}

func TestShutdownAndHandover(t *testing.T) {
	for _, swallow := range []bool{false, true} {
		t.Run(fmt.Sprintf("gate error swallowed %v", swallow), func(t *testing.T) { testShutdownAndHandover(t, swallow) })
	}
}

func testShutdownAndHandover(t *testing.T, swallow bool) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	stop := NewStopper(nil)
	r := &fakeRunner{pages: 5, hold: make(chan struct{}), gate: stop, swallowGate: swallow}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Stopper: stop, Threads: 2, Grace: time.Minute})
	submit(t, h.m, "a", "b", "c", "d")
	eventually(t, "two running", func() bool { return r.running() == 2 })
	h.cancel()
	eventually(t, "shutdown begun", stop.Stopped)
	// The held pages finish; the Stopper refuses the next request, well
	// before the grace period.
	r.hold <- struct{}{}
	r.hold <- struct{}{}
	if err := <-h.served; err != nil {
		t.Fatal(err)
	}
	h.cancel = nil
	st := states(t, q)
	if st["a"].State != queue.Running || st["b"].State != queue.Running || st["c"].State != queue.Queued {
		t.Fatalf("after shutdown: a %s, b %s, c %s", st["a"].State, st["b"].State, st["c"].State)
	}
	running, queued, err := h.m.Handover()
	if err != nil {
		t.Fatal(err)
	}
	got := append(running, queued...)
	if len(running) != 2 || len(got) != 4 || got[2].ID != "c" || got[3].ID != "d" {
		t.Fatalf("handover returned %d tasks", len(got))
	}
	for _, rec := range got {
		if want, _ := (&task.Task{ID: rec.ID, Channel: rec.ID, Seeds: []string{"http://" + rec.ID + "/"}}).Encode(); string(rec.Raw) != string(want) {
			t.Fatalf("handover of %s lost its raw bytes", rec.ID)
		}
		if s, _ := q.Get(rec.ID); s.State != queue.HandedOver {
			t.Fatalf("%s is %s", rec.ID, s.State)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "spool")); len(left) != 0 {
		t.Fatalf("%d partial spools left", len(left))
	}
}

func TestGraceCancelsStuckCrawl(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 2, hold: make(chan struct{})} // never released
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Grace: 10 * time.Millisecond})
	submit(t, h.m, "a")
	eventually(t, "running", func() bool { return r.running() == 1 })
	h.stop(t)
	if s := states(t, q)["a"].State; s != queue.Running {
		t.Fatalf("a is %s after a cancelled crawl; want running (re-run or hand over)", s)
	}
}

func TestUploadsResumeAfterRestart(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	h := start(t, q, dir, Options{Runner: &fakeRunner{pages: 2}, Uploader: &fakeUploader{fail: 1 << 30}, MinBackoff: time.Millisecond})
	submit(t, h.m, "a", "b")
	eventually(t, "both done", func() bool {
		st := states(t, q)
		return st["a"].State == queue.Done && st["b"].State == queue.Done
	})
	h.stop(t)
	path := filepath.Join(dir, "queue.db")
	q.Close()
	q2, err := queue.Open(path, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	if up, _ := q2.Uploads(); len(up) != 2 {
		t.Fatalf("%d pending uploads after restart, want 2", len(up))
	}
	orphan := filepath.Join(dir, "spool", "interrupted.spool")
	if err := os.WriteFile(orphan, []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := &fakeUploader{}
	run := &fakeRunner{pages: 2}
	start(t, q2, dir, Options{Runner: run, Uploader: up})
	eventually(t, "uploads resumed", allRecorded(t, q2, 2))
	if up.delivered["a"] != 1 || up.pages["a"] != 2 || len(run.calls) != 0 {
		t.Fatalf("resumed delivery %v pages %v, runs %v", up.delivered, up.pages, run.calls)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("partial spool of an interrupted task kept: %v", err)
	}
}

func TestStopper(t *testing.T) {
	blocked := gateFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	for _, tc := range []struct {
		name      string
		inner     crawler.Gate
		stopFirst bool // Stop before Wait
		stopLater bool // Stop while Wait blocks
		want      error
	}{
		{name: "open", inner: nil},
		{name: "inner passes", inner: gateFunc(func(context.Context) error { return nil })},
		{name: "stopped", inner: nil, stopFirst: true, want: ErrStopping},
		{name: "stopped with an open inner gate", inner: gateFunc(func(context.Context) error { return nil }), stopFirst: true, want: ErrStopping},
		{name: "stop releases a paused wait", inner: blocked, stopLater: true, want: ErrStopping},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStopper(tc.inner)
			if tc.stopFirst {
				s.Stop()
			}
			errc := make(chan error, 1)
			go func() { errc <- s.Wait(context.Background()) }()
			if tc.stopLater {
				s.Stop()
			}
			if err := <-errc; !errors.Is(err, tc.want) || (err != nil) != (tc.want != nil) {
				t.Fatalf("Wait = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestStopDeliversFinishedResults: a result that had finished and whose
// upload was under way when a graceful stop came is uploaded within the
// grace period, not at the next start: its lease ends with the upload,
// and a volunteer that leaves right after a crawl leaves no host held.
func TestStopDeliversFinishedResults(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	up := &fakeUploader{stallFirst: true}
	h := start(t, q, dir, Options{Runner: &fakeRunner{pages: 2}, Uploader: up, Grace: 5 * time.Second})
	submitTasks(t, h.m, &task.Task{ID: "a", Channel: "a", Seeds: []string{"http://a.example/"}})
	eventually(t, "the upload under way", func() bool { up.mu.Lock(); defer up.mu.Unlock(); return up.calls == 1 })
	h.stop(t)
	up.mu.Lock()
	defer up.mu.Unlock()
	if up.delivered["a"] != 1 {
		t.Fatalf("the finished result was delivered %d times at the stop, want once", up.delivered["a"])
	}
}
