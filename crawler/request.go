package crawler

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// request waits for the gate and the politeness delay, then fetches. The
// delay runs from the end of the run's previous request, whatever its host
// (robots.txt, a redirect hop, a retry), and from the end of the previous
// request to the same host by another run of the crawler.
func (r *run) request(ctx context.Context, req request) (*response, error) {
	if r.cfg.Gate != nil {
		if err := r.cfg.Gate.Wait(ctx); err != nil {
			return nil, fmt.Errorf("wait for gate: %w", err)
		}
	}
	gap := max(r.delay, r.nextWait, r.slow)
	r.nextWait = 0
	if !r.lastReq.IsZero() {
		if wait := gap - time.Since(r.lastReq); wait > 0 {
			if err := sleep(ctx, wait); err != nil {
				return nil, err
			}
			r.res.Stats.Wait += task.Duration(wait)
		}
	}
	release, waited, err := r.c.hosts.acquire(ctx, req.URL.Host, gap)
	r.res.Stats.Wait += task.Duration(waited)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		// Ended while waiting (a lease revoked, a shutdown): not one
		// request more, whatever the waits above noticed.
		release()
		return nil, err
	}
	if prev, ok := r.schemes[req.URL.Host]; ok && prev != req.URL.Scheme {
		r.f.close()
	}
	if r.schemes == nil {
		r.schemes = make(map[string]string)
	}
	r.schemes[req.URL.Host] = req.URL.Scheme
	// A request sent is answered: a run stopped meanwhile still reads
	// the answer for StopGrace, so that what the host asked of it
	// (robots.txt's Crawl-delay, a 429's Retry-After) is known to the
	// lease's next holder, whose first request keeps it.
	fctx, done := finishing(ctx, StopGrace)
	resp, err := r.f.fetch(fctx, req)
	done()
	release()
	r.lastReq = time.Now()
	if resp != nil {
		r.noteAddr(req.URL.Host, resp.Addr)
		if r.hosts[req.URL.Host] {
			r.slow = slowWait(resp.RTT)
		}
		r.res.Stats.BytesDown += resp.WireBytes
		r.res.Stats.RTT += task.Duration(resp.RTT)
		r.res.Stats.Transfer += task.Duration(resp.Transfer)
	}
	return resp, err
}

// StopGrace is how long a request in flight as its run stops may take to
// finish. The host has the request; its answer may ask for a wait (a
// Crawl-delay, a Retry-After) that the crawler hands on when it releases
// the host's lease, and that its heir, a volunteer that never read it,
// keeps before its own first request.
const StopGrace = 3 * time.Second

// finishing returns a context for a request that outlives ctx by grace:
// it ends grace after ctx ends, or when done is called.
func finishing(ctx context.Context, grace time.Duration) (fctx context.Context, done func()) {
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, cancel)
		context.AfterFunc(fctx, func() { t.Stop() })
	})
	return fctx, func() {
		stop()
		cancel()
	}
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}
