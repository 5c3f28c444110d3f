package governor

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
)

var (
	_ crawler.Limiter = (*Bucket)(nil)
	_ crawler.Gate    = (*Governor)(nil)
)

// TestBucketCapAccuracy reads an endless body from a local server through a
// 200 KB/s bucket for 10 s and checks the bytes the client got: within ±5 %
// of the cap over the whole run and never more than 10 % over it in any 1 s
// window. It measures bytes against the cap, not speed, so the machine's
// load does not decide it (a slow machine can only deliver fewer bytes, and
// the server on loopback is far faster than the cap).
func TestBucketCapAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 10 s")
	}
	const capBytes = 200_000
	const run = 10 * time.Second
	block := bytes.Repeat([]byte("hivecrawl "), 3277)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	b := NewBucket(capBytes)
	body := b.Reader(ctx, resp.Body)
	type mark struct {
		at    time.Duration
		total int64
	}
	var marks []mark
	buf := make([]byte, 64<<10)
	var total int64
	start := time.Now()
	for {
		n, err := body.Read(buf)
		at := time.Since(start)
		if at > run {
			break
		}
		total += int64(n)
		marks = append(marks, mark{at, total})
		if err != nil {
			t.Fatalf("read after %v: %v", at, err)
		}
	}
	if got, want := b.Total(), total; got < want {
		t.Errorf("bucket counted %d bytes, client read %d", got, want)
	}

	wantTotal := float64(capBytes) * run.Seconds()
	dev := (float64(total) - wantTotal) / wantTotal
	t.Logf("read %d bytes in %v: %.2f %% off the cap", total, run, dev*100)
	// Only going over the cap fails: a loaded machine may read slower than
	// the cap allows, and timings never decide a test (the bucket's
	// arithmetic is checked exactly in TestBucketWaitN).
	if dev > 0.05 {
		t.Errorf("throughput %d bytes over %v is %.1f %% above %d B/s (allowed 5 %%)", total, run, dev*100, capBytes)
	}

	// Every 1 s window ending at a read: bytes read in (at−1s, at].
	worst := 0.0
	j := 0
	for i := range marks {
		for marks[j].at <= marks[i].at-time.Second {
			j++
		}
		var before int64
		if j > 0 {
			before = marks[j-1].total
		}
		if w := float64(marks[i].total-before) / capBytes; w > worst {
			worst = w
		}
	}
	t.Logf("worst 1 s window: %.1f %% of the cap (%d reads)", worst*100, len(marks))
	if worst > 1.10 {
		t.Errorf("a 1 s window carried %.1f %% of the cap (allowed 110 %%)", worst*100)
	}
}

func TestBucketWaitN(t *testing.T) {
	tests := []struct {
		name  string
		rate  int64
		waits []int
	}{
		{"unlimited counts", 0, []int{1 << 20, 5, 0}},
		{"larger than burst", 4 << 20, []int{crawler.ReadChunk, 16 * crawler.ReadChunk}},
		{"tiny rate small reads", 1 << 20, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBucket(tt.rate)
			var want int64
			for _, n := range tt.waits {
				if err := b.WaitN(context.Background(), n); err != nil {
					t.Fatalf("WaitN(%d): %v", n, err)
				}
				want += int64(n)
			}
			if b.Total() != want {
				t.Errorf("Total = %d, want %d", b.Total(), want)
			}
		})
	}
}

func TestBucketWaitEndsWithContext(t *testing.T) {
	b := NewBucket(100) // a 1 MB wait would take hours
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.WaitN(ctx, 1<<20) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitN after cancel = %v", err)
	}
}

func TestBucketSetRateLive(t *testing.T) {
	b := NewBucket(10) // would block for a long time
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- b.WaitN(ctx, 1000) }()
	b.SetRate(0) // unlimited: the pending wait finishes after its current piece
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b.Rate() != 0 {
		t.Errorf("Rate = %d", b.Rate())
	}
	b.SetRate(-5)
	if b.Rate() != 0 {
		t.Errorf("negative rate kept: %d", b.Rate())
	}
}

func TestBucketWriter(t *testing.T) {
	b := NewBucket(1 << 30)
	var out bytes.Buffer
	data := bytes.Repeat([]byte("x"), 1<<20)
	n, err := b.Writer(context.Background(), &out).Write(data)
	if err != nil || n != len(data) || out.Len() != len(data) {
		t.Fatalf("Write = %d, %v; wrote %d", n, err, out.Len())
	}
	if b.Total() != int64(len(data)) {
		t.Errorf("Total = %d", b.Total())
	}
	got, _ := io.ReadAll(b.Reader(context.Background(), bytes.NewReader(data)))
	if len(got) != len(data) || b.Total() != 2*int64(len(data)) {
		t.Errorf("Reader: %d bytes, total %d", len(got), b.Total())
	}
}
