package taskmgr

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/task"
)

// Spare counts idle threads only while the manager serves; Offer passes
// over tasks that could not start now (another task of their host runs
// here) and those pick turns down; an offer not taken goes back and runs,
// one taken is ended as shared and never runs here.
func TestShareWaitingTasks(t *testing.T) {
	dir := t.TempDir()
	q := openQueue(t, dir, 10)
	r := &fakeRunner{pages: 2, hold: make(chan struct{})}
	m, err := New(Options{Queue: q, Runner: r, Uploader: &fakeUploader{}, SpoolDir: dir, Threads: 2, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if w, idle, err := m.Spare(); w != 0 || idle != 0 || err != nil {
		t.Fatalf("Spare before Serve = %d, %d, %v; want 0, 0 (no thread runs)", w, idle, err)
	}
	h := start(t, q, dir, Options{Runner: r, Uploader: &fakeUploader{}, Threads: 2})
	eventually(t, "two idle threads", func() bool { w, idle, _ := h.m.Spare(); return w == 0 && idle == 2 })

	add := func(id, host string) {
		tk := &task.Task{ID: id, Channel: host, Seeds: []string{"http://" + host + "/"}}
		raw, _ := tk.Encode()
		if err := h.m.Submit(raw, nil, tk); err != nil {
			t.Fatal(err)
		}
	}
	add("a1", "a")
	add("b1", "b")
	eventually(t, "both threads busy", func() bool { return r.running() == 2 })
	add("c1", "c")
	add("d1", "d")
	add("a2", "a") // its host runs here: it could not start elsewhere either
	if w, idle, err := h.m.Spare(); w != 3 || idle != 0 || err != nil {
		t.Fatalf("Spare with both threads busy = %d, %d, %v; want 3 waiting, 0 idle", w, idle, err)
	}
	off, err := h.m.Offer(func(r *queue.Record) (float64, bool) { return 0, r.ID != "d1" })
	if err != nil || off == nil || off.ID != "c1" {
		t.Fatalf("Offer = %v, %v; want c1 (a2's host runs here, d1 not picked)", off, err)
	}
	if err := h.m.Unoffer(off.ID); err != nil {
		t.Fatal(err)
	}
	off, err = h.m.Offer(nil)
	if err != nil || off == nil || off.ID != "d1" {
		t.Fatalf("Offer = %v, %v; want d1, the last that could start", off, err)
	}
	if err := h.m.Shared(off.ID); err != nil {
		t.Fatal(err)
	}
	if pieces, _, _ := h.m.Load(); pieces != 4 {
		t.Fatalf("load %d pieces after sharing d1, want 4 (a1, b1 running; c1, a2 waiting)", pieces)
	}
	for range 4 {
		r.hold <- struct{}{}
	}
	eventually(t, "the rest recorded", allRecorded(t, q, 4))
	st := states(t, q)
	if d := st["d1"]; d.State != queue.HandedOver || d.Reason != queue.ReasonShared {
		t.Fatalf("d1 is %s (%q), want handed over as shared", d.State, d.Reason)
	}
	if r.calls["d1"] != 0 || r.calls["c1"] != 1 {
		t.Fatalf("runs: d1 %d, c1 %d; want 0 and 1", r.calls["d1"], r.calls["c1"])
	}
}

// A task started here is not offered after a restart, though it waits
// like any other: its host's lease is this peer's until released or
// lapsed, so a taker could not claim it (in the hijackers' demo two
// channels went uncrawled that way: the taker left, its hand-back changed
// nothing at the manager, and the task waited for its deadline). A task
// that never started here is offered as before.
func TestStartedTaskNotShared(t *testing.T) {
	dir := t.TempDir()
	q, err := queue.Open(filepath.Join(dir, "queue.db"), queue.Options{MaxLen: 10})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Queue: q, Runner: &fakeRunner{pages: 1}, Uploader: &fakeUploader{}, SpoolDir: dir, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	submitTasks(t, m, leased("started.example"))
	if r, _, err := q.Next(time.Now(), nil); err != nil || r == nil || r.ID != "started.example" {
		t.Fatalf("Next = %v, %v", r, err)
	}
	// The process ends mid-task (killed or stopped, the queue puts a
	// running task back at the next Open alike).
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	q = openQueue(t, dir, 10)
	m, err = New(Options{Queue: q, Runner: &fakeRunner{pages: 1}, Uploader: &fakeUploader{}, SpoolDir: dir, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if st := states(t, q)["started.example"]; st.State != queue.Queued || st.Attempts != 1 {
		t.Fatalf("after the restart the started task is %s, attempts %d; want queued, 1", st.State, st.Attempts)
	}
	if off, err := m.Offer(nil); err != nil || off != nil {
		t.Fatalf("Offer = %v, %v; want none: the only waiting task was started here", off, err)
	}
	submitTasks(t, m, leased("new.example"))
	if off, err := m.Offer(nil); err != nil || off == nil || off.ID != "new.example" {
		t.Fatalf("Offer = %v, %v; want new.example, never started here", off, err)
	}
}
