package wire

import (
	"bytes"
	"fmt"
	"testing"
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
