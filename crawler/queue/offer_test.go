package queue

import (
	"errors"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// Offer takes the task that would start last among those picked, Unoffer
// puts it back in its place, and Shared ends it as handed over.
func TestOffer(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "a", "b", "c", "d")
	notD := only(func(r *Record) bool { return r.ID != "d" })
	c, err := q.Offer(t0, notD)
	if err != nil || c == nil || c.ID != "c" || c.State != Offered {
		t.Fatalf("Offer = %v, %v; want c offered (d is not picked)", c, err)
	}
	if w, _ := q.Waiting(); ids(w) != "a,b,d" {
		t.Fatalf("waiting while c is offered: %s, want a,b,d", ids(w))
	}
	if err := q.Unoffer("c"); err != nil {
		t.Fatal(err)
	}
	if w, _ := q.Waiting(); ids(w) != "a,b,c,d" {
		t.Fatalf("waiting after c came back: %s, want a,b,c,d (c in its place)", ids(w))
	}
	if err := q.Unoffer("c"); !errors.Is(err, ErrState) {
		t.Fatalf("Unoffer of a queued task = %v, want ErrState", err)
	}

	b, err := q.Offer(t0, only(func(r *Record) bool { return r.ID == "b" }))
	if err != nil || b == nil {
		t.Fatalf("Offer b = %v, %v", b, err)
	}
	if err := q.Shared("b", t0); err != nil {
		t.Fatal(err)
	}
	if r, _ := q.Get("b"); r.State != HandedOver || r.Reason != ReasonShared {
		t.Fatalf("b after Shared: %s (%q), want handed over, shared", r.State, r.Reason)
	}
	if err := q.Shared("a", t0); !errors.Is(err, ErrState) {
		t.Fatalf("Shared of a task never offered = %v, want ErrState", err)
	}
	if r, err := q.Offer(t0, only(func(*Record) bool { return false })); r != nil || err != nil {
		t.Fatalf("Offer with nothing picked = %v, %v; want nil, nil", r, err)
	}
	if r := next(t, q, t0); r == nil || r.ID != "a" {
		t.Fatalf("next after the offers: %v, want a", r)
	}
}

// only ranks the records keep accepts alike.
func only(keep func(*Record) bool) func(*Record) (float64, bool) {
	return func(r *Record) (float64, bool) { return 0, keep(r) }
}

// Offer takes the highest ranked of the tasks its rank accepts, wherever
// it waits, ties to the one that would start last.
func TestOfferTakesTheHighestRank(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "a", "b", "c", "d", "e")
	rank := map[string]float64{"a": 0.2, "b": 0.9, "c": 0.9, "d": 0.1, "e": 5}
	byRank := func(r *Record) (float64, bool) { return rank[r.ID], r.ID != "e" }
	for _, want := range []string{"c", "b", "a", "d"} {
		r, err := q.Offer(t0, byRank)
		if err != nil || r == nil || r.ID != want {
			t.Fatalf("Offer = %v, %v; want %s (ranks %v, e not accepted)", r, err, want, rank)
		}
	}
	if r, err := q.Offer(t0, byRank); r != nil || err != nil {
		t.Fatalf("Offer with only e left, not accepted = %v, %v; want nil, nil", r, err)
	}
	if err := q.Unoffer("a"); err != nil {
		t.Fatal(err)
	}
	if w, _ := q.Waiting(); ids(w) != "a,e" {
		t.Fatalf("waiting: %s, want a,e", ids(w))
	}
}

// A task offered when the process dies is back in its place at the next
// Open.
func TestOfferedRecoveredAtOpen(t *testing.T) {
	q, path := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "a", "b", "c")
	if r, err := q.Offer(t0, only(func(r *Record) bool { return r.ID == "b" })); err != nil || r == nil {
		t.Fatalf("Offer b = %v, %v", r, err)
	}
	crash(t, q)
	q2, err := Open(path, Options{MaxLen: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	if w, _ := q2.Waiting(); ids(w) != "a,b,c" {
		t.Fatalf("waiting after a crash mid-offer: %s, want a,b,c", ids(w))
	}
	if r, _ := q2.Get("b"); r.State != Queued {
		t.Fatalf("b after a crash mid-offer: %s, want queued", r.State)
	}
}

// A task that left for a neighbour (shared, or handed over when this peer
// left) and comes back waits again in its old place, afresh; a task that
// ran here, or one still here, is a duplicate; one from an earlier lease
// does not come back.
func TestTaskComesBack(t *testing.T) {
	q, _ := openTemp(t, Options{MaxLen: 10})
	enqueue(t, q, "a", "b", "c", "d")
	if r, err := q.Offer(t0, only(func(r *Record) bool { return r.ID == "b" })); err != nil || r == nil {
		t.Fatalf("Offer b = %v, %v", r, err)
	}
	if err := q.Shared("b", t0); err != nil {
		t.Fatal(err)
	}
	if r := next(t, q, t0); r == nil || r.ID != "a" {
		t.Fatalf("next = %v, want a", r)
	}
	if err := q.Finish("a", &task.Result{}, "s", t0); err != nil {
		t.Fatal(err)
	}
	back := func(id string, epoch uint64) error {
		tk := newTask(id, 0)
		tk.Lease.Epoch = epoch
		raw, _ := tk.Encode()
		return q.Enqueue(raw, nil, tk, t0.Add(time.Minute))
	}
	if err := back("b", 0); err != nil {
		t.Fatalf("shared b coming back: %v", err)
	}
	if w, _ := q.Waiting(); ids(w) != "b,c,d" {
		t.Fatalf("waiting after b came back: %s, want b,c,d (b in its place)", ids(w))
	}
	if r, _ := q.Get("b"); r.State != Queued || r.Reason != "" || !r.Finished.IsZero() || !r.Enqueued.Equal(t0) {
		t.Fatalf("b back: %s (%q), finished %v, enqueued %v; want queued afresh, enqueued when it first came", r.State, r.Reason, r.Finished, r.Enqueued)
	}
	for _, id := range []string{"a", "b"} {
		if err := back(id, 0); !errors.Is(err, ErrDuplicate) {
			t.Fatalf("%s again = %v, want ErrDuplicate (done here, or waiting)", id, err)
		}
	}

	// Handed over at a leave, under lease epoch 2: an epoch-1 copy does
	// not come back, the epoch-2 one does.
	tk := newTask("e", 0)
	tk.Lease.Epoch = 2
	raw, _ := tk.Encode()
	if err := q.Enqueue(raw, nil, tk, t0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.Handover(t0); err != nil {
		t.Fatal(err)
	}
	if err := back("e", 1); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("e under an earlier lease = %v, want ErrDuplicate", err)
	}
	if err := back("e", 2); err != nil {
		t.Fatalf("e handed back: %v", err)
	}
	if w, _ := q.Waiting(); ids(w) != "e" {
		t.Fatalf("waiting after the handover and e's return: %s, want e", ids(w))
	}
}
