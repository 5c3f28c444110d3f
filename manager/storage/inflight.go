package storage

import (
	"context"
	"sync"
)

// inflight counts work under way and lets a caller wait for none. Unlike
// a sync.WaitGroup, work may start while someone waits.
type inflight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while n is 0
}

// add changes the count by d (1 when work starts, -1 when it ends).
func (f *inflight) add(d int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n += d
	switch {
	case f.n < 0:
		panic("storage: inflight count below zero")
	case f.n == 0 && f.idle != nil:
		close(f.idle)
		f.idle = nil
	case f.n > 0 && f.idle == nil:
		f.idle = make(chan struct{})
	}
}

// wait returns nil once the count is 0, or ctx's error.
func (f *inflight) wait(ctx context.Context) error {
	f.mu.Lock()
	idle := f.idle
	f.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
