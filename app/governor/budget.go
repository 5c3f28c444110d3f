package governor

import (
	"context"
	"sync"
)

// Budget admits work against a memory budget: a crawler.Admitter. Work is
// admitted while what is admitted fits the limit; work larger than the
// whole limit runs alone, so nothing waits forever. A zero limit admits
// everything at once.
type Budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
	wake  chan struct{} // closed and replaced when room may have appeared
}

// NewBudget returns a budget of limit bytes (0 = unlimited).
func NewBudget(limit int64) *Budget {
	return &Budget{limit: limit, wake: make(chan struct{})}
}

// Admit blocks until n bytes fit, or ctx ends, and returns the function
// that gives them back (safe to call more than once).
func (b *Budget) Admit(ctx context.Context, n int64) (func(), error) {
	for {
		b.mu.Lock()
		if b.limit <= 0 || b.used == 0 || b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					b.mu.Lock()
					b.used -= n
					b.signalLocked()
					b.mu.Unlock()
				})
			}, nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// SetLimit changes the limit; waiters re-check at once.
func (b *Budget) SetLimit(limit int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if limit != b.limit {
		b.limit = limit
		b.signalLocked()
	}
}

// Used returns the bytes admitted now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

func (b *Budget) signalLocked() {
	close(b.wake)
	b.wake = make(chan struct{})
}
