package crawler

import (
	"context"
	"sync"
	"time"
)

// hostMemory is how long the end of a host's last request is remembered
// once the host is idle: a politeness wait longer than this is kept within
// a run but not carried over to the next run on the host.
const hostMemory = 10 * time.Minute

// hostClock spaces the requests of all runs of one Crawler to each host: a
// request starts only after the previous request to its host ended and the
// politeness wait has passed since. Within a run, the run's own last
// request decides the same; the clock carries the wait from one run to the
// next on the same host (a channel's pieces, or a recrawl, crawled back to
// back) and holds runs that overlap on a host to one request at a time.
type hostClock struct {
	mu      sync.Mutex // guards hosts and pruneAt
	hosts   map[string]*hostTurn
	pruneAt int // prune idle hosts when the map grows to this size
}

// hostTurn is one host's state in a hostClock.
type hostTurn struct {
	// freed is closed when the request in flight ends; nil while idle.
	freed chan struct{}
	// end is when the host's last request ended.
	end time.Time
}

func newHostClock() *hostClock {
	return &hostClock{hosts: make(map[string]*hostTurn), pruneAt: 256}
}

// acquire waits until a request to host may start, gap after the end of
// the previous one from any run, and holds the host until release is
// called. It returns how long it waited, or ctx's error.
func (h *hostClock) acquire(ctx context.Context, host string, gap time.Duration) (release func(), waited time.Duration, err error) {
	start := time.Now()
	defer func() {
		if waited = time.Since(start); waited < time.Millisecond {
			waited = 0 // no wait worth counting, only the lock
		}
	}()
	for {
		h.mu.Lock()
		t := h.hosts[host]
		if t == nil {
			t = &hostTurn{}
			h.hosts[host] = t
		}
		if busy := t.freed; busy != nil {
			h.mu.Unlock()
			select {
			case <-busy:
				continue
			case <-ctx.Done():
				return nil, 0, ctx.Err()
			}
		}
		if d := gap - time.Since(t.end); !t.end.IsZero() && d > 0 {
			h.mu.Unlock()
			if err := sleep(ctx, d); err != nil {
				return nil, 0, err
			}
			continue // another run may have taken the host meanwhile
		}
		t.freed = make(chan struct{})
		h.mu.Unlock()
		return func() { h.release(t) }, 0, nil
	}
}

// release ends the request in flight on t's host.
func (h *hostClock) release(t *hostTurn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t.end = time.Now()
	close(t.freed)
	t.freed = nil
	if len(h.hosts) >= h.pruneAt {
		for host, o := range h.hosts {
			if o.freed == nil && t.end.Sub(o.end) > hostMemory {
				delete(h.hosts, host)
			}
		}
		h.pruneAt = max(256, 2*len(h.hosts))
	}
}
