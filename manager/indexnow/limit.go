package indexnow

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Default per-host submission limits: a burst of 10, then one every 10 s
// (360 an hour). Pushes between two rounds of a channel are folded into
// one round anyway, so a site gains nothing by submitting faster.
const (
	DefaultBurst = 10
	DefaultEvery = 10 * time.Second
)

// Limiter bounds how often each host may submit: a token bucket per host
// of burst tokens refilled one per every. It tracks at most max hosts;
// when full it forgets hosts whose bucket is full again, and refuses new
// hosts while none is. Safe for concurrent use.
type Limiter struct {
	every time.Duration
	burst int
	max   int

	mu    sync.Mutex // guards hosts
	hosts map[string]*rate.Limiter
}

// NewLimiter returns a limiter of burst submissions per host, refilled one
// per every, tracking at most max hosts.
func NewLimiter(burst int, every time.Duration, max int) *Limiter {
	return &Limiter{every: every, burst: burst, max: max, hosts: make(map[string]*rate.Limiter)}
}

// Allow takes one submission of host at now from its bucket. When the
// bucket is empty it returns false and how long until a token is back.
func (l *Limiter) Allow(host string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.hosts[host]
	if !ok {
		if len(l.hosts) >= l.max {
			l.forgetIdle(now)
		}
		if len(l.hosts) >= l.max {
			return false, l.every
		}
		lim = rate.NewLimiter(rate.Every(l.every), l.burst)
		l.hosts[host] = lim
	}
	if lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - lim.TokensAt(now)
	return false, time.Duration(math.Ceil(missing * float64(l.every)))
}

// forgetIdle drops the hosts whose bucket is full at now. l.mu is held.
func (l *Limiter) forgetIdle(now time.Time) {
	for h, lim := range l.hosts {
		if lim.TokensAt(now) >= float64(l.burst) {
			delete(l.hosts, h)
		}
	}
}
