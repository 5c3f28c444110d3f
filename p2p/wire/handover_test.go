package wire

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDeclinedOfALyingHeir: an heir's list of the tasks it did not queue
// is its word. Positions it was never sent are ignored, and one named
// many times is given back once: a lying heir cannot make a leaving peer
// send the manager more reports than it has tasks.
func TestDeclinedOfALyingHeir(t *testing.T) {
	all := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	got := DeclinedOf(all, []uint32{2, 0, 2, 7, 0, 4096, 2, ^uint32(0)})
	if fmt.Sprintf("%s", got) != "[c a]" {
		t.Fatalf("given back %s, want [c a]", got)
	}
	if got := DeclinedOf(all, nil); len(got) != 0 {
		t.Fatalf("nothing declined, %d given back", len(got))
	}
}

// TestSplitHandover: every task goes in one message, in order, queued
// before running; no message exceeds the task count or byte budget; the
// first alone carries the certificates and the last alone has More
// unset.
func TestSplitHandover(t *testing.T) {
	big := bytes.Repeat([]byte("x"), handoverBatchBytes/3)
	var queued, running [][]byte
	for i := range MaxHandoverTasks + 5 {
		queued = append(queued, fmt.Appendf(nil, "q%d", i))
	}
	for range 4 {
		running = append(running, big)
	}
	first := &Handover{Certs: [][]byte{[]byte("cert")}}
	msgs := SplitHandover(first, queued, running)
	var gotQ, gotR int
	for i, m := range msgs {
		if n := len(m.Queued) + len(m.Running); n > MaxHandoverTasks {
			t.Errorf("message %d carries %d tasks", i, n)
		}
		size := 0
		for _, e := range append(m.Queued, m.Running...) {
			size += len(e)
		}
		if size > handoverBatchBytes {
			t.Errorf("message %d carries %d bytes", i, size)
		}
		if m.More != (i < len(msgs)-1) || (i == 0) != (len(m.Certs) > 0) {
			t.Errorf("message %d: More %v, %d certificates", i, m.More, len(m.Certs))
		}
		if gotR > 0 && len(m.Queued) > 0 {
			t.Errorf("message %d: a queued task after a running one", i)
		}
		for j, e := range m.Queued {
			if want := fmt.Sprintf("q%d", gotQ+j); string(e) != want {
				t.Fatalf("message %d: queued %q, want %q", i, e, want)
			}
		}
		gotQ += len(m.Queued)
		gotR += len(m.Running)
	}
	if gotQ != len(queued) || gotR != len(running) || msgs[0] != first {
		t.Fatalf("%d queued and %d running sent, want %d and %d, starting with first", gotQ, gotR, len(queued), len(running))
	}
}

// TestHandoverBothSides runs a handover of three batches between
// SendHandover and ReceiveHandover: the heir sees every task once, in
// the order sent, and its answer counts the tasks it queued and names
// the positions it declined, not the ones it dropped. A handover whose
// first batch the heir's check refuses gets the reason back, and none of
// its tasks is taken.
func TestHandoverBothSides(t *testing.T) {
	var queued, running [][]byte
	for i := range MaxHandoverTasks + 3 {
		queued = append(queued, fmt.Appendf(nil, "q%d", i))
	}
	running = append(running, []byte("r0"), []byte("r1"))
	batches := SplitHandover(&Handover{Certs: [][]byte{[]byte("cert")}}, queued, running)
	if len(batches) < 2 {
		t.Fatalf("%d batches, want several", len(batches))
	}
	run := func(batches []*Handover, check func(*Handover) error, take func([]byte) Taken) ([]uint32, uint32, error, error) {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		type result struct {
			n   uint32
			err error
		}
		done := make(chan result, 1)
		go func() {
			n, err := ReceiveHandover(ctx, NewConn(b, MaxHandoverSize), check, take)
			done <- result{n, err}
		}()
		declined, err := SendHandover(ctx, NewConn(a, MaxHandoverResponseSize), batches)
		r := <-done
		return declined, r.n, r.err, err
	}

	var seen []string
	take := func(e []byte) Taken {
		seen = append(seen, string(e))
		switch string(e) {
		case "q1", "r1":
			return Declined
		case "q2":
			return Dropped
		}
		return Queued
	}
	declined, n, rerr, serr := run(batches, func(m *Handover) error {
		if len(m.Certs) != 1 {
			return fmt.Errorf("no certificate")
		}
		return nil
	}, take)
	if rerr != nil || serr != nil {
		t.Fatalf("receive: %v, send: %v", rerr, serr)
	}
	all := append(slices.Clone(queued), running...)
	if fmt.Sprintf("%s", seen) != fmt.Sprintf("%s", all) {
		t.Fatalf("the heir saw %d tasks, want the %d sent in order", len(seen), len(all))
	}
	if want := uint32(len(all) - 3); n != want {
		t.Errorf("the heir queued %d, want %d", n, want)
	}
	if got := DeclinedOf(all, declined); fmt.Sprintf("%s", got) != "[q1 r1]" {
		t.Errorf("declined %s, want [q1 r1]", got)
	}

	// Refused at its first batch (a longer handover's sender learns it
	// as a failed write: the heir has closed the stream).
	seen = nil
	one := SplitHandover(&Handover{}, queued[:3], nil)
	_, n, rerr, serr = run(one, func(*Handover) error { return fmt.Errorf("not yours to hand over") }, take)
	if rerr != nil || serr == nil || !strings.Contains(serr.Error(), "not yours to hand over") {
		t.Errorf("a refused handover: receive %v, send %v, want the heir's reason", rerr, serr)
	}
	if n != 0 || len(seen) != 0 {
		t.Errorf("a refused handover had %d tasks taken, %d queued", len(seen), n)
	}
}
