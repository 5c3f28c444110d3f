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
	resp, err := r.f.fetch(ctx, req)
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
