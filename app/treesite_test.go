package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// treeSite is a web site of n pages on loopback, page i linking to pages
// 2i+1 and 2i+2, that counts the requests for each page and the bytes it
// served. A request for anything else fails the test.
type treeSite struct {
	*httptest.Server
	mu     sync.Mutex // guards hits and served
	hits   map[string]int
	served int64
}

// newTreeSite starts a site of n pages of about words×54 bytes of text,
// each answered after pause; it stops when t ends.
func newTreeSite(t *testing.T, n, words int, pause time.Duration) *treeSite {
	s := &treeSite{hits: map[string]int{}}
	filler := strings.Repeat("Words of an ordinary page, enough to weigh something. ", words)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body string
		var i int
		switch _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &i); {
		case r.URL.Path == "/robots.txt":
			body = "User-agent: *\nAllow: /\n"
		case err == nil && i >= 0 && i < n:
			var links string
			for _, j := range []int{2*i + 1, 2*i + 2} {
				if j < n {
					links += fmt.Sprintf(`<a href="/p%d.html">p%d</a> `, j, j)
				}
			}
			body = fmt.Sprintf(`<html><head><title>Page %d</title></head><body><p>%s</p>%s</body></html>`, i, filler, links)
			time.Sleep(pause)
		default:
			t.Errorf("request for %s, which no page links to", r.URL.Path)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		k, _ := w.Write([]byte(body))
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.served += int64(k)
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// pageRequests returns the requests for pages (robots.txt aside) and how
// many pages were requested.
func (s *treeSite) pageRequests() (total, distinct int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, k := range s.hits {
		if p != "/robots.txt" {
			total += k
			distinct++
		}
	}
	return total, distinct
}

// bytesServed returns the bytes of every answer so far.
func (s *treeSite) bytesServed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}
