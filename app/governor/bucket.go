package governor

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"golang.org/x/time/rate"
)

// burstShare is the bucket's burst as a share of its rate: small enough that
// no one-second window exceeds the cap by more than a few percent, large enough that a
// fast link is not woken thousands of times a second.
const burstShare = 40

// minChunk keeps a Reader from reading a few bytes at a time on very low
// caps.
const minChunk = 512

// Bucket is a shared token bucket in bytes per second. Every crawl connection
// (or every upload) meters its bytes through the same Bucket, so the cap is
// for the whole client. A zero rate means unlimited; bytes are still counted.
// It is safe for concurrent use and can be reconfigured live.
type Bucket struct {
	lim   *rate.Limiter
	rate  atomic.Int64 // bytes/s; 0 = unlimited
	total atomic.Int64 // bytes metered, ever
	// moved, when set, hears (without blocking) that bytes were metered.
	moved chan<- struct{}
}

// NewBucket returns a bucket with the given rate (0 = unlimited).
func NewBucket(bytesPerSec int64) *Bucket {
	b := &Bucket{lim: rate.NewLimiter(rate.Inf, 0)}
	b.SetRate(bytesPerSec)
	return b
}

// SetRate changes the cap; waiting callers see it at once.
func (b *Bucket) SetRate(bytesPerSec int64) {
	bytesPerSec = max(bytesPerSec, 0)
	if b.rate.Swap(bytesPerSec) == bytesPerSec {
		return
	}
	if bytesPerSec == 0 {
		b.lim.SetLimit(rate.Inf)
		return
	}
	b.lim.SetBurst(int(max(bytesPerSec/burstShare, 1)))
	b.lim.SetLimit(rate.Limit(bytesPerSec))
}

// Rate returns the cap in bytes per second (0 = unlimited).
func (b *Bucket) Rate() int64 { return b.rate.Load() }

// Total returns the bytes metered so far.
func (b *Bucket) Total() int64 { return b.total.Load() }

// WaitN counts n bytes and blocks until the cap allows them. n may exceed
// the burst: it is paid in burst-sized pieces. It returns an error only when
// ctx ends. WaitN makes Bucket a crawler.Limiter.
func (b *Bucket) WaitN(ctx context.Context, n int) error {
	if n <= 0 {
		return nil
	}
	b.total.Add(int64(n))
	if b.moved != nil {
		select {
		case b.moved <- struct{}{}:
		default:
		}
	}
	for n > 0 {
		if b.rate.Load() == 0 {
			return nil
		}
		chunk := min(n, max(b.lim.Burst(), 1))
		if err := b.lim.WaitN(ctx, chunk); err != nil {
			return fmt.Errorf("wait for bandwidth: %w", err)
		}
		n -= chunk
	}
	return nil
}

// chunk is the largest read a Reader makes at once.
func (b *Bucket) chunk() int {
	if b.rate.Load() == 0 {
		return 1 << 20
	}
	return max(b.lim.Burst(), minChunk)
}

// Reader returns r metered by b: each Read reads at most a burst and returns
// only once the cap allows the bytes read.
func (b *Bucket) Reader(ctx context.Context, r io.Reader) io.Reader {
	return &reader{ctx: ctx, r: r, b: b}
}

type reader struct {
	ctx context.Context
	r   io.Reader
	b   *Bucket
}

func (r *reader) Read(p []byte) (int, error) {
	if c := r.b.chunk(); len(p) > c {
		p = p[:c]
	}
	n, err := r.r.Read(p)
	if werr := r.b.WaitN(r.ctx, n); werr != nil && err == nil {
		err = werr
	}
	return n, err
}

// Writer returns w metered by b: each Write is split into bursts, each sent
// once the cap allows it.
func (b *Bucket) Writer(ctx context.Context, w io.Writer) io.Writer {
	return &writer{ctx: ctx, w: w, b: b}
}

type writer struct {
	ctx context.Context
	w   io.Writer
	b   *Bucket
}

func (w *writer) Write(p []byte) (int, error) {
	done := 0
	for len(p) > 0 {
		c := min(len(p), w.b.chunk())
		if err := w.b.WaitN(w.ctx, c); err != nil {
			return done, err
		}
		n, err := w.w.Write(p[:c])
		done += n
		if err != nil {
			return done, err
		}
		p = p[c:]
	}
	return done, nil
}
