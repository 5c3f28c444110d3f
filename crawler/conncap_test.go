package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// slots is a connection cap for tests: n slots, each held by a dialled
// connection until it closes.
type slots struct {
	free chan struct{}
	held atomic.Int32
}

func newSlots(n int) *slots {
	s := &slots{free: make(chan struct{}, n)}
	for range n {
		s.free <- struct{}{}
	}
	return s
}

func (s *slots) wrap(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		select {
		case <-s.free:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		c, err := dial(ctx, network, addr)
		if err != nil {
			s.free <- struct{}{}
			return nil, err
		}
		s.held.Add(1)
		return &heldConn{Conn: c, release: sync.OnceFunc(func() { s.held.Add(-1); s.free <- struct{}{} })}, nil
	}
}

type heldConn struct {
	net.Conn
	release func()
}

func (c *heldConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// TestConnectionCapAcrossRuns: two runs on two hosts under a cap of one
// connection (Config.WrapDial, as the client's governor gives it) take
// turns: the hosts never answer at once, both runs finish, and no slot
// is left held. Before, the contributor's cap limited the runs, not the
// connections: no dial consulted it.
func TestConnectionCapAcrossRuns(t *testing.T) {
	var (
		mu             sync.Mutex
		inFlight, most int
	)
	// Each answer takes 20 ms, so two runs without the cap overlap. The
	// count goes down before the handler returns, and the response's last
	// bytes go out after: the next request cannot come before.
	counted := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			defer func() {
				mu.Lock()
				inFlight--
				mu.Unlock()
			}()
			time.Sleep(20 * time.Millisecond)
			h.ServeHTTP(w, r)
		})
	}
	newCapSite := func() *site {
		m := map[string]string{}
		var all []string
		for i := range 8 {
			p := fmt.Sprintf("/p/%d", i)
			all = append(all, p)
			m[p] = html(fmt.Sprintf("<p>Page %d has some words.</p>", i))
		}
		m["/"] = html(links(all...))
		return newSite(t, counted(pages(m)))
	}
	a, b := newCapSite(), newCapSite()
	cap1 := newSlots(1)
	cfg := testConfig(t)
	cfg.WrapDial = cap1.wrap
	c := New(cfg)
	var wg sync.WaitGroup
	results := make([]*task.Result, 2)
	errs := make([]error, 2)
	for i, s := range []*site{a, b} {
		wg.Go(func() {
			results[i], errs[i] = c.Run(context.Background(), &task.Task{ID: fmt.Sprint("run", i), Seeds: []string{s.URL + "/"}, MaxDepth: 1}, &memSink{})
		})
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || results[i].Stats.PagesFetched != 9 {
			t.Fatalf("run %d: %v; want 9 pages", i, errs[i])
		}
	}
	if most != 1 {
		t.Fatalf("the two hosts answered %d requests at once under a cap of one connection", most)
	}
	if n := cap1.held.Load(); n != 0 {
		t.Fatalf("%d slots still held after both runs ended", n)
	}
}
