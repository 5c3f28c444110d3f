package governor

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Conns caps the number of open crawl connections (the crawler's, through
// Dial, and the RTT prober's). A zero cap means no cap. The overlay's
// resource manager derives its own cap from the same setting. Safe for
// concurrent use; the cap can change live (lowering it never closes open
// connections, it only holds back new ones).
type Conns struct {
	mu   sync.Mutex // guards the fields below
	cap  int
	open int
	wake chan struct{} // closed and replaced when a slot may have freed
}

// NewConns returns a connection cap of n (0 = no cap).
func NewConns(n int) *Conns {
	return &Conns{cap: max(n, 0), wake: make(chan struct{})}
}

// Acquire takes a slot, waiting while all are in use, until ctx ends.
func (c *Conns) Acquire(ctx context.Context) error {
	for {
		c.mu.Lock()
		if c.cap == 0 || c.open < c.cap {
			c.open++
			c.mu.Unlock()
			return nil
		}
		wake := c.wake
		c.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("wait for a connection slot: %w", ctx.Err())
		}
	}
}

// TryAcquire takes a slot if one is free.
func (c *Conns) TryAcquire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cap == 0 || c.open < c.cap {
		c.open++
		return true
	}
	return false
}

// Release returns a slot taken by Acquire or TryAcquire.
func (c *Conns) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open > 0 {
		c.open--
	}
	c.broadcast()
}

// SetCap changes the cap (0 = no cap).
func (c *Conns) SetCap(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cap = max(n, 0)
	c.broadcast()
}

// broadcast wakes every waiter; c.mu must be held.
func (c *Conns) broadcast() {
	close(c.wake)
	c.wake = make(chan struct{})
}

// Open returns the number of slots in use.
func (c *Conns) Open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// Cap returns the cap (0 = no cap).
func (c *Conns) Cap() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cap
}

// DialFunc is the shape of net.Dialer.DialContext (an alias, so the
// crawler's and the RTT prober's dial wrappers take Dial as it is).
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Dial wraps dial so every connection holds a slot from dialling until it
// is closed.
func (c *Conns) Dial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := c.Acquire(ctx); err != nil {
			return nil, err
		}
		conn, err := dial(ctx, network, addr)
		if err != nil {
			c.Release()
			return nil, err
		}
		return &slotConn{Conn: conn, release: sync.OnceFunc(c.Release)}, nil
	}
}

type slotConn struct {
	net.Conn
	release func()
}

func (s *slotConn) Close() error {
	err := s.Conn.Close()
	s.release()
	return err
}
