package app

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/queue"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/task"
)

func TestFeederRounds(t *testing.T) {
	dir := t.TempDir()
	q, m := idleQueue(t, dir, 3)
	seeds, err := ParseSeeds([]byte("http://a.example/\nhttp://b.example/\n"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := &feeder{
		seeds: seeds, params: SeedTasks{Interval: time.Hour, MaxDepth: 1}, roundFile: filepath.Join(dir, "round.json"),
		q: q, m: m, now: clock, log: quiet,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Serve(ctx) }()

	byRound := func(round string) int {
		rs, _ := q.Select(func(r *queue.Record) bool { return strings.HasPrefix(r.ID, "seed-"+round+"-") })
		return len(rs)
	}
	eventually(t, "round 1 submitted", func() bool { return byRound("1") == 2 })
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	// Round 2 fills the queue's last place; the other waits for room.
	eventually(t, "round 2 submitted as room allows", func() bool { return byRound("2") == 1 })
	if n, _ := q.Len(); n != 3 {
		t.Fatalf("queue length %d, want 3 (full)", n)
	}
	q.SetMaxLen(4)
	eventually(t, "the rest of round 2", func() bool { return byRound("2") == 2 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, err := loadRound(f.roundFile)
	if err != nil || r.Round != 2 || !r.Started.Equal(now) {
		t.Fatalf("saved round %+v, %v", r, err)
	}
}

// idleQueue opens a task queue of length maxLen in dir and a task manager
// over it that is not served: submitted tasks stay queued.
func idleQueue(t *testing.T, dir string, maxLen int) (*queue.Queue, *taskmgr.Manager) {
	t.Helper()
	q, err := queue.Open(filepath.Join(dir, "queue.db"), queue.Options{MaxLen: maxLen})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	m, err := taskmgr.New(taskmgr.Options{Queue: q, Runner: nopRunner{}, Uploader: &LocalUploader{Dir: dir}, SpoolDir: filepath.Join(dir, "spool")})
	if err != nil {
		t.Fatal(err)
	}
	return q, m
}

type nopRunner struct{}

func (nopRunner) Run(ctx context.Context, t *task.Task, sink crawler.Sink) (*task.Result, error) {
	return &task.Result{TaskID: t.ID}, nil
}
