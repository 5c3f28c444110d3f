package crawler

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
)

// robotsFor returns the robots.txt policy for u's host, fetching it first
// when the host is new (RFC 9309: redirects followed, up to five), or
// again when the copy the run has is RobotsTTL old: a long crawl (16 h
// for 10,000 pages at 1 s, days under a long Crawl-delay) would
// otherwise keep a file the site has changed since, RFC 9309 §2.4's
// 24 hours and more.
func (r *run) robotsFor(ctx context.Context, u *url.URL) (*robots, error) {
	key := u.Scheme + "://" + u.Host
	old, ok := r.robots[key]
	if ok && !old.stale(r.c.now()) {
		return old, nil
	}
	agent := r.token
	cur := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	status := 0
	var (
		body        []byte
		unreachable error // the host's own, not a redirect target's
	)
	for hop := 0; hop <= 5; hop++ {
		resp, err := r.request(ctx, request{URL: cur, AnyType: true, MaxBody: maxRobotsBytes})
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, ErrForbiddenAddress) {
			if hop == 0 { // the host itself may not be contacted
				rb := &robots{mode: robotsDisallowAll, agent: agent, err: err}
				r.robots[key] = rb
				return rb, nil
			}
			status = http.StatusNotFound // redirected somewhere forbidden: no usable robots.txt
			break
		}
		if err != nil && !errors.Is(err, ErrBodyTooLarge) {
			r.log.Debug("Robots.txt unreachable", "url", cur.String(), "err", err)
			status = 0
			if hop == 0 {
				unreachable = err
			}
			break
		}
		status, body = resp.Status, resp.Body
		loc := resp.Header.Get("Location")
		if !isRedirect(status) || loc == "" {
			break
		}
		next, err := urls.Canonical(loc, cur)
		if err != nil {
			status = http.StatusNotFound // an unusable redirect: no robots.txt
			break
		}
		cur = next
		status = http.StatusNotFound // more than five redirects: unavailable
	}
	rb := robotsForStatus(status, body, agent)
	rb.unreachable, rb.fetched = unreachable, r.c.now()
	rb.kept = keptRobots(key, status, body, rb, rb.fetched)
	if old != nil {
		// The run read the sitemaps the old copy named: not again.
		rb.sitemapsRead = old.sitemapsRead
		r.log.Debug("Robots.txt asked again: the copy was a day old", "origin", key)
	}
	r.adoptRobots(key, u, rb)
	if err := ctx.Err(); err != nil {
		// Stopped as the answer came: its Crawl-delay is kept for the
		// lease's release, and the run ends.
		return nil, err
	}
	return rb, nil
}

// adoptRobots makes rb the run's policy for key, u's origin, fetched now
// or kept by the checkpoint the run resumed from: its Crawl-delay raises
// the run's wait, or paces the host's tasks when longer than a run waits.
func (r *run) adoptRobots(key string, u *url.URL, rb *robots) {
	r.robots[key] = rb
	longest := cmp.Or(r.cfg.MaxCrawlDelay, MaxCrawlDelay)
	wait := min(rb.crawlDelay, longest)
	r.c.hosts.asked(u.Host, wait) // for later runs too, from their robots.txt on
	if wait > r.delay {
		r.log.Debug("Crawl-delay raises the politeness wait", "host", u.Host, "delay", rb.crawlDelay)
		r.delay = wait
	}
	if rb.crawlDelay > longest && r.sameSite(u) {
		// Longer than a task waits: one page this task, and the manager
		// spaces the host's tasks by the whole of it.
		r.paced = max(r.paced, rb.crawlDelay)
	}
}
