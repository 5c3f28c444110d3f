package indexnow

import (
	"sync"
	"time"
)

// DefaultVerifiedFor is how long a verified key is trusted before its
// file is fetched again.
const DefaultVerifiedFor = 24 * time.Hour

// Cache remembers verified keys (Submission.CacheKey) until they expire.
// It holds at most max entries: when full, expired entries go first, then
// the one closest to expiry. Safe for concurrent use.
type Cache struct {
	ttl time.Duration
	max int

	mu    sync.Mutex           // guards until
	until map[string]time.Time // key → when its verification lapses
}

// NewCache returns a cache that trusts a key for ttl, holding at most max
// keys.
func NewCache(ttl time.Duration, max int) *Cache {
	return &Cache{ttl: ttl, max: max, until: make(map[string]time.Time)}
}

// Has reports whether key was verified and has not lapsed at now.
func (c *Cache) Has(key string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.until[key]
	if ok && !now.Before(t) {
		delete(c.until, key)
		return false
	}
	return ok
}

// Add records key as verified at now.
func (c *Cache) Add(key string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.until[key]; !ok && len(c.until) >= c.max {
		c.evict(now)
	}
	c.until[key] = now.Add(c.ttl)
}

// Len returns the number of keys held, lapsed or not.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.until)
}

// evict makes room for one entry. c.mu is held.
func (c *Cache) evict(now time.Time) {
	var soonest string
	var at time.Time
	for k, t := range c.until {
		if !now.Before(t) {
			delete(c.until, k)
			continue
		}
		if soonest == "" || t.Before(at) {
			soonest, at = k, t
		}
	}
	if len(c.until) >= c.max && soonest != "" {
		delete(c.until, soonest)
	}
}
