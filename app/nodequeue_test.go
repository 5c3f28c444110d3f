package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/p2p/node"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestNodeQueueFullIsTheOverlays: the overlay sees a full task queue as
// full (node.Fuller) and its refusal as node.ErrQueueFull, both of which
// it balances to a lighter neighbour, and a task it already holds as
// accepted.
func TestNodeQueueFullIsTheOverlays(t *testing.T) {
	q, m := idleQueue(t, t.TempDir(), 1)
	nq := nodeQueue{q: q, m: m}
	mk := func(id string) *task.Task {
		return &task.Task{ID: id, Channel: id + ".example", Seeds: []string{"http://" + id + ".example/"}, Interval: task.Duration(time.Hour)}
	}
	ctx := context.Background()
	if nq.Full() {
		t.Fatal("empty queue says it is full")
	}
	if err := nq.Enqueue(ctx, mk("a"), []byte("a"), nil); err != nil {
		t.Fatal(err)
	}
	if !nq.Full() {
		t.Fatal("queue holding its one task says it has room")
	}
	if err := nq.Enqueue(ctx, mk("a"), []byte("a"), nil); err != nil {
		t.Fatalf("a task already queued: %v, want it accepted", err)
	}
	if err := nq.Enqueue(ctx, mk("b"), []byte("b"), nil); !errors.Is(err, node.ErrQueueFull) {
		t.Fatalf("a task beyond the queue's length: %v, want %v", err, node.ErrQueueFull)
	}
}

// TestNodeQueueShares: the overlay sees the waiting tasks, no idle thread
// while crawling is paused, and an offer's end in the queue: back in its
// place, or handed over as shared; a shared task that comes back runs.
func TestNodeQueueShares(t *testing.T) {
	q, m := idleQueue(t, t.TempDir(), 5)
	paused := true
	nq := nodeQueue{q: q, m: m, paused: func() bool { return paused }}
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		tk := &task.Task{ID: id, Channel: id + ".example", Seeds: []string{"http://" + id + ".example/"}, Interval: task.Duration(time.Hour)}
		if err := nq.Enqueue(ctx, tk, []byte(id), nil); err != nil {
			t.Fatal(err)
		}
	}
	if w, idle := nq.Spare(); w != 3 || idle != 0 {
		t.Fatalf("Spare = %d waiting, %d idle; want 3, 0", w, idle)
	}
	tk, env, err := nq.Offer(ctx, func(t *task.Task) (float64, bool) { return 0, t.ID != "c" })
	if err != nil || tk == nil || tk.ID != "b" || string(env) != "b" {
		t.Fatalf("Offer = %v, %q, %v; want b with its envelope", tk, env, err)
	}
	if err := nq.Settle(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	if w, _ := q.Waiting(); len(w) != 3 || w[1].ID != "b" {
		t.Fatalf("b not back in its place: %d waiting", len(w))
	}
	if tk, _, err = nq.Offer(ctx, func(*task.Task) (float64, bool) { return 0, true }); err != nil || tk.ID != "c" {
		t.Fatalf("Offer = %v, %v; want c", tk, err)
	}
	if err := nq.Settle(ctx, "c", true); err != nil {
		t.Fatal(err)
	}
	if r, _ := q.Get("c"); r.State != queue.HandedOver {
		t.Fatalf("c is %s after it was taken, want handed over", r.State)
	}
	if w, _ := nq.Spare(); w != 2 {
		t.Fatalf("Spare = %d waiting after sharing one, want 2", w)
	}

	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- m.Serve(sctx) }()
	defer func() { stop(); <-served }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, err := m.Status(); err == nil && len(st.Running) == 0 && len(st.Queued) == 0 {
			break // a and b ran
		}
		if time.Now().After(deadline) {
			t.Fatal("a and b never ran")
		}
	}
	if w, idle := nq.Spare(); w != 0 || idle != 0 {
		t.Fatalf("Spare while paused = %d waiting, %d idle; want 0, 0", w, idle)
	}
	paused = false
	if w, idle := nq.Spare(); w != 0 || idle != config.DefaultThreads {
		t.Fatalf("Spare once resumed = %d waiting, %d idle; want 0, %d", w, idle, config.DefaultThreads)
	}

	// c comes back (the neighbour it went to left, and this peer took
	// its zone): it is queued again, not taken for a duplicate, and runs.
	ctk := &task.Task{ID: "c", Channel: "c.example", Seeds: []string{"http://c.example/"}, Interval: task.Duration(time.Hour)}
	if err := nq.Enqueue(ctx, ctk, []byte("c"), nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if r, err := q.Get("c"); err == nil && r.State == queue.Done {
			break
		}
		if time.Now().After(deadline) {
			r, _ := q.Get("c")
			t.Fatalf("c came back and is %s, want it run (done)", r.State)
		}
	}
}
