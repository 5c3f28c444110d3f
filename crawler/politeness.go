package crawler

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// policy is one run's politeness: the operator's policy from the task
// over the crawler's configuration (design.md §8). The operator names the
// crawler and sets the least politeness; the configuration can only add
// to it.
type policy struct {
	userAgent string        // the User-Agent header
	token     string        // the product token robots.txt rules are matched against
	delay     time.Duration // the wait between requests, before Crawl-delay
	maxPages  int
}

// policyFor returns the politeness of a run of t under cfg (defaults
// applied): the task's User-Agent and token when it names them, else
// cfg's; the longer wait and the fewer pages of the two, each default
// applying only when neither sets one. A policy that could not be sent
// honestly (a User-Agent that is no header value or does not start with
// a product token, a token that is none) is an error.
func policyFor(cfg *Config, t *task.Task) (policy, error) {
	p := policy{
		userAgent: cfg.UserAgent,
		delay:     max(cfg.Delay, time.Duration(t.Delay)),
		maxPages:  t.MaxPages,
	}
	if p.delay <= 0 && !cfg.NoDelay {
		p.delay = DefaultDelay
	}
	if ua := t.Policy.UserAgent; ua != "" {
		if !ValidUserAgent(ua) {
			return policy{}, fmt.Errorf("policy user agent %q: want printable ASCII starting with a product token", ua)
		}
		p.userAgent = ua
	}
	p.token = productToken(p.userAgent)
	if tok := t.Policy.Token; tok != "" {
		if !validToken(tok) {
			return policy{}, fmt.Errorf("policy token %q: want letters, '-' and '_' only", tok)
		}
		p.token = tok
	}
	switch {
	case p.maxPages <= 0 && cfg.MaxPages > 0:
		p.maxPages = cfg.MaxPages
	case p.maxPages <= 0:
		p.maxPages = DefaultMaxPages
	case cfg.MaxPages > 0:
		p.maxPages = min(p.maxPages, cfg.MaxPages)
	}
	return p, nil
}

// MaxRetryAfter is the longest Retry-After the crawler waits for; a server
// asking for more ends the task, which the manager resubmits later.
const MaxRetryAfter = 2 * time.Minute

// maxAttempts is how often one URL is tried when the server answers 429 or
// 503.
const maxAttempts = 3

// retryAfter parses a Retry-After header, delay-seconds or an HTTP date,
// relative to now. A date in the past means no wait.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			return 24 * time.Hour, true
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// SlowDownRest is how long a host that answered 429 or 503 without
// Retry-After rests: the task stops at once, and the manager rests the
// host at least as long for every crawler, doubling it at each strike in
// a row.
const SlowDownRest = 60 * time.Second

// DelayFactor raises the politeness wait to this many times the host's
// last response time (to its first byte), up to maxSlowWait: a server
// that slows down under load is asked no faster than it answers, and
// less often as it slows (Heritrix's delay factor).
//
// Heritrix's default of 5 is not ours: the time to the first byte holds
// the network round trip and the volunteer's own load as well as the
// server's work, so 5 made a host 200 ms away wait a second between
// requests whatever its operator's wait, and a busy volunteer slower
// still. The churn swarm (emulated round trips of 50–300 ms, a CPU hog
// beside it) left 95–130 tasks open at its deadline with 5 and failed
// 2 runs of 2; with 1 it ended with 4 open and passed.
const DelayFactor = 1

// slowWait is the wait a response time of rtt asks for.
func slowWait(rtt time.Duration) time.Duration {
	return min(DelayFactor*rtt, maxSlowWait)
}

// maxSlowWait caps the wait response times ask for.
const maxSlowWait = 30 * time.Second

// isRetryStatus reports whether a status asks the crawler to slow down.
func isRetryStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable
}

// isFailure reports whether a failed fetch says the host is in trouble
// (unreachable, timing out, erroring), as opposed to one bad page. Runs of
// these end the task after Config.MaxFailures.
func isFailure(kind string, status int) bool {
	if status >= 500 || status == http.StatusTooManyRequests {
		return true
	}
	switch kind {
	case "timeout", "network", "connection_refused", "connection_reset", "dns":
		return true
	}
	return false
}

// maxHostAddrs bounds the addresses a result reports.
const maxHostAddrs = 8

// noteAddr records that a channel's host answered from addr.
func (r *run) noteAddr(host, addr string) {
	if addr == "" || !r.hosts[host] || len(r.addrs) >= maxHostAddrs || slices.Contains(r.addrs, addr) {
		return
	}
	r.addrs = append(r.addrs, addr)
}

// heed keeps the rest host asked for in resp, an answer that came as the
// run stopped (a 429 or 503 and its Retry-After, a challenge): the run
// ends without acting on it, but its lease's release hands the rest on.
func (r *run) heed(host string, resp *response) {
	switch {
	case isRetryStatus(resp.Status):
		wait, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		if !ok {
			wait = SlowDownRest
		}
		r.c.hosts.resting(host, time.Now().Add(wait))
	case challengeOf(resp) != "":
		r.c.hosts.resting(host, time.Now().Add(SlowDownRest))
	}
}
