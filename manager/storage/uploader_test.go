package storage

import (
	"context"
	"crypto/rand"
	"strings"
	"sync"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// countingLimiter records the waits asked of it.
type countingLimiter struct {
	mu      sync.Mutex
	total   int
	biggest int
}

func (c *countingLimiter) WaitN(_ context.Context, n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += n
	c.biggest = max(c.biggest, n)
	return nil
}

// TestUploadIsMetered: every byte an upload sends passes the upload cap's
// limiter, in chunks no bigger than crawler.ReadChunk.
func TestUploadIsMetered(t *testing.T) {
	r := newRig(t)
	tk, env := r.issue(t, 1)
	up, _ := r.client(t)
	lim := &countingLimiter{}
	up.Limiter = lim
	text := strings.Repeat("words of a long page ", 8000) // ~160 KB
	pages := []*task.Page{page("http://site.example/", text), page("http://site.example/a", text)}
	if _, err := up.Upload(context.Background(), delivery(t, tk.ID, env, pages, nil)); err != nil {
		t.Fatal(err)
	}
	if lim.total < 2*len(text) {
		t.Fatalf("limiter metered %d bytes of an upload carrying %d bytes of text", lim.total, 2*len(text))
	}
	if lim.biggest > crawler.ReadChunk {
		t.Fatalf("a wait of %d bytes exceeds the chunk of %d", lim.biggest, crawler.ReadChunk)
	}
}

// TestOversizedPageDoesNotHoldUpTheResult: a page too large for one page
// message (a huge text) goes without its text, and the rest of the result
// is stored; it was refused whole and retried for ever.
func TestOversizedPageDoesNotHoldUpTheResult(t *testing.T) {
	r := newRig(t)
	tk, env := r.issue(t, 1)
	huge := page("http://site.example/huge", "x")
	huge.Text = make([]byte, upload.MaxPageSize) // base64 in JSON: a third larger still
	if _, err := rand.Read(huge.Text); err != nil {
		t.Fatal(err)
	}
	pages := append(site(), huge)
	rc, _ := r.upload(t, tk.ID, env, pages)
	if rc.PagesAccepted != len(site()) {
		t.Fatalf("receipt %+v; want the %d other pages accepted", rc, len(site()))
	}
	if _, ok, err := r.st.Lookup("http://site.example/huge"); err != nil || ok {
		t.Fatalf("the page sent without its text was indexed: %v, %v", ok, err)
	}
}
