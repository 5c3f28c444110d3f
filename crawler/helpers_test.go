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
// requests with server-side timestamps.
type site struct {
	*httptest.Server
	conns atomic.Int32
	mu    sync.Mutex
	hits  []hit
}

func newSite(t testing.TB, h http.Handler) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, hit{Path: r.URL.RequestURI(), At: time.Now(), Hdr: r.Header.Clone()})
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
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
