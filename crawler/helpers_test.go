package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// hit is one request a test site saw.
type hit struct {
	Path string
	At   time.Time
	Hdr  http.Header
}

// site is an httptest web host that counts connections and records
// requests with server-side timestamps, and the connection each came on.
type site struct {
	*httptest.Server
	conns atomic.Int32
	mu    sync.Mutex // guards the fields below
	hits  []hit
	// order numbers the connections as they opened, from 1.
	order map[net.Conn]int
	// newest is the latest-opened connection that carried a request;
	// backwards counts requests that came on an older one after it.
	newest, backwards int
	// inFlight and maxInFlight count the requests being answered.
	inFlight, maxInFlight int
}

// connKey is the request context key of the connection a request came on.
type connKey struct{}

func newSite(t testing.TB, h http.Handler) *site {
	t.Helper()
	s := &site{order: map[net.Conn]int{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, hit{Path: r.URL.RequestURI(), At: time.Now(), Hdr: r.Header.Clone()})
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		if k := s.order[c]; k < s.newest {
			s.backwards++
		} else {
			s.newest = k
		}
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		// The response's last bytes go out after the handler returns: the
		// client cannot have it all, and send its next request, before.
		defer func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	}))
	s.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			n := s.conns.Add(1)
			s.mu.Lock()
			s.order[c] = int(n)
			s.mu.Unlock()
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// checkOneConnection fails the test unless the site saw the crawler's
// promise (package doc): one request at a time, over at most one
// connection at a time (a connection once left is never used again), kept
// for the next request where it can be. Go's transport may drop a
// connection it could have kept (on a busy machine, when it cannot
// confirm within 50 ms that a request was written before its answer was
// read), so reuse is checked as most requests going on a connection
// already open, not as a single connection.
func (s *site) checkOneConnection(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	conns, requests := int(s.conns.Load()), len(s.hits)
	if s.maxInFlight > 1 {
		t.Errorf("the site answered %d requests at once, want one at a time", s.maxInFlight)
	}
	if s.backwards > 0 {
		t.Errorf("%d requests came on a connection older than one already used: two connections in use at once", s.backwards)
	}
	if conns > max(1, requests/2) {
		t.Errorf("%d connections for %d requests: the crawler does not keep its connection", conns, requests)
	}
	if conns > 1 {
		t.Logf("%d connections for %d requests, one after another", conns, requests)
	}
}

// requests returns the hits whose path starts with prefix.
func (s *site) requests(prefix string) []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []hit
	for _, h := range s.hits {
		if strings.HasPrefix(h.Path, prefix) {
			out = append(out, h)
		}
	}
	return out
}

// pagePaths returns the paths requested other than robots.txt, in the
// order they came.
func (s *site) pagePaths() []string {
	var out []string
	for _, h := range s.requests("") {
		if h.Path != "/robots.txt" {
			out = append(out, h.Path)
		}
	}
	return out
}

// memSink keeps pages in memory.
type memSink struct {
	mu    sync.Mutex
	pages []*task.Page
}

func (m *memSink) Page(p *task.Page) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages = append(m.pages, p)
	return nil
}

func (m *memSink) byURL(u string) *task.Page {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.pages {
		if p.URL == u {
			return p
		}
	}
	return nil
}

// testConfig is a fixture-friendly configuration: loopback allowed, no
// default politeness wait.
func testConfig(t testing.TB) Config {
	return Config{AllowLoopback: true, NoDelay: true, TempDir: t.TempDir(), PageTimeout: 10 * time.Second}
}

func html(body string) string {
	return "<!doctype html><html><head><title>T</title></head><body>" + body + "</body></html>"
}

func links(paths ...string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, p, p)
	}
	return b.String()
}

// pages serves a map of path → HTML; robots.txt is 404 unless given.
func pages(m map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, body)
	})
}

func runTask(t testing.TB, cfg Config, tk *task.Task) (*task.Result, *memSink) {
	t.Helper()
	if tk.ID == "" {
		tk.ID = "t"
	}
	sink := &memSink{}
	res, err := New(cfg).Run(context.Background(), tk, sink)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, sink
}

// countingLimiter is a Limiter that never waits and counts what it was
// asked for.
type countingLimiter struct {
	n, maxN atomic.Int64
}

func (l *countingLimiter) WaitN(ctx context.Context, n int) error {
	l.n.Add(int64(n))
	for {
		m := l.maxN.Load()
		if int64(n) <= m || l.maxN.CompareAndSwap(m, int64(n)) {
			return ctx.Err()
		}
	}
}
