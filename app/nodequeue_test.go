package app

import (
	"context"
	"errors"
	"testing"
	"time"

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
	if err := nq.Enqueue(ctx, mk("a"), []byte("a")); err != nil {
		t.Fatal(err)
	}
	if !nq.Full() {
		t.Fatal("queue holding its one task says it has room")
	}
	if err := nq.Enqueue(ctx, mk("a"), []byte("a")); err != nil {
		t.Fatalf("a task already queued: %v, want it accepted", err)
	}
	if err := nq.Enqueue(ctx, mk("b"), []byte("b")); !errors.Is(err, node.ErrQueueFull) {
		t.Fatalf("a task beyond the queue's length: %v, want %v", err, node.ErrQueueFull)
	}
}
