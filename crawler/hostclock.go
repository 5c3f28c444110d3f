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
	// wait is the politeness wait the host asked for itself (robots.txt
	// Crawl-delay), as last read: every run keeps it, from its first
	// request (the next run's robots.txt) on.
	wait time.Duration
	// rest is when the host asked to be left alone until (Retry-After).
	rest time.Time
	// served counts the requests to the host that ended, from any run.
	served int
}

func newHostClock() *hostClock {
	return &hostClock{hosts: make(map[string]*hostTurn), pruneAt: 256}
}

// turnLocked returns host's state, made when new; h.mu must be held.
func (h *hostClock) turnLocked(host string) *hostTurn {
	t := h.hosts[host]
	if t == nil {
		t = &hostTurn{}
		h.hosts[host] = t
	}
	return t
}

// asked records the politeness wait host asks for (robots.txt
// Crawl-delay), which every later request to it keeps.
func (h *hostClock) asked(host string, wait time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.turnLocked(host).wait = wait
}

// resting records that host asked for no request before until
// (Retry-After), whichever run asks next.
func (h *hostClock) resting(host string, until time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.turnLocked(host); until.After(t.rest) {
		t.rest = until
	}
}

// asks returns the politeness wait host asked for and the end of the rest
// it asked for (zero when none is ahead).
func (h *hostClock) asks(host string) (wait time.Duration, rest time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.hosts[host]; t != nil {
		wait = t.wait
		if time.Now().Before(t.rest) {
			rest = t.rest
		}
	}
	return wait, rest
}

// HostActivity is what a Crawler knows of its work on one host: enough
// for its lease's holder to show the manager that the crawl moves, or
// that the host itself asked it to wait.
type HostActivity struct {
	// Requests counts the requests to the host that ended (robots.txt,
	// sitemaps and pages, from every run), since the host was last
	// forgotten: it may start again from 0, never goes back otherwise.
	Requests int
	// Wait is the longest the host asks the next request to wait: its
	// Crawl-delay as kept (up to Config.MaxCrawlDelay), or what is left
	// of the rest it asked for (Retry-After).
	Wait time.Duration
}

// HostActivity returns c's activity on host.
func (c *Crawler) HostActivity(host string) HostActivity {
	h := c.hosts
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.hosts[host]
	if t == nil {
		return HostActivity{}
	}
	return HostActivity{Requests: t.served, Wait: max(t.wait, time.Until(t.rest))}
}

// acquire waits until a request to host may start: gap, or the host's own
// wait when longer, after the end of the previous one from any run, and
// not before the end of a rest the host asked for. It holds the host until
// release is called, and returns how long it waited, or ctx's error.
func (h *hostClock) acquire(ctx context.Context, host string, gap time.Duration) (release func(), waited time.Duration, err error) {
	start := time.Now()
	defer func() {
		if waited = time.Since(start); waited < time.Millisecond {
			waited = 0 // no wait worth counting, only the lock
		}
	}()
	for {
		h.mu.Lock()
		t := h.turnLocked(host)
		if busy := t.freed; busy != nil {
			h.mu.Unlock()
			select {
			case <-busy:
				continue
			case <-ctx.Done():
				return nil, 0, ctx.Err()
			}
		}
		d := max(gap, t.wait) - time.Since(t.end)
		if t.end.IsZero() {
			d = 0
		}
		if r := time.Until(t.rest); r > d {
			d = r
		}
		if d > 0 {
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
	t.served++
	close(t.freed)
	t.freed = nil
	if len(h.hosts) >= h.pruneAt {
		for host, o := range h.hosts {
			if o.freed == nil && t.end.Sub(o.end) > hostMemory && t.end.After(o.rest) {
				delete(h.hosts, host)
			}
		}
		h.pruneAt = max(256, 2*len(h.hosts))
	}
}
