package queue

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// BenchmarkTaskLife measures one task's whole life in the queue: enqueue,
// take, finish, deliver, record (five committed transactions).
func BenchmarkTaskLife(b *testing.B) {
	q, err := Open(filepath.Join(b.TempDir(), "queue.db"), Options{MaxLen: 10})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	for i := 0; b.Loop(); i++ {
		tk := newTask(fmt.Sprintf("t%d", i), 0)
		raw, _ := tk.Encode()
		if err := q.Enqueue(raw, nil, tk, t0); err != nil {
			b.Fatal(err)
		}
		r, _, err := q.Next(t0, nil)
		if err != nil || r == nil {
			b.Fatal(err)
		}
		if err := q.Finish(r.ID, &task.Result{}, "s", t0); err != nil {
			b.Fatal(err)
		}
		if err := q.Delivered(r.ID, []byte("r")); err != nil {
			b.Fatal(err)
		}
		if err := q.Recorded(r.ID); err != nil {
			b.Fatal(err)
		}
	}
}
