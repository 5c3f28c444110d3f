package crawler

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// benchSite serves n pages of about 10 KB of prose linked as a tree (page
// i links to 5i+1 … 5i+5), so a crawl from / reaches all of them.
func benchSite(b *testing.B, n int) *site {
	words := strings.Fields("the crawler fetches each page once over one persistent connection and keeps " +
		"only the main text which it compresses before the upload to the storage module of the operator")
	body := make([]string, n)
	for i := range n {
		var sb strings.Builder
		fmt.Fprintf(&sb, "<!doctype html><html><head><title>Page %d</title></head><body>", i)
		sb.WriteString(`<nav><a href="/">Home</a> <a href="/about">About</a></nav><article><h1>Article</h1>`)
		for p := 0; sb.Len() < 9500; p++ {
			sb.WriteString("<p>")
			for w := range 40 {
				sb.WriteString(words[(i*7+p*13+w)%len(words)])
				sb.WriteByte(' ')
			}
			sb.WriteString("</p>")
		}
		sb.WriteString("</article><footer>")
		for k := 1; k <= 5; k++ {
			fmt.Fprintf(&sb, `<a href="/p/%d">next %d</a> `, (i*5+k)%n, k)
		}
		sb.WriteString("</footer></body></html>")
		body[i] = sb.String()
	}
	return newSite(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		switch {
		case r.URL.Path == "/":
		case strings.HasPrefix(r.URL.Path, "/p/"):
			if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i < 0 || i >= n {
				http.NotFound(w, r)
				return
			}
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body[i]))
	}))
}

// BenchmarkCrawl crawls one local host of 500 pages with no politeness
// wait and reports pages/s and allocations per page, with and without
// main-text extraction.
func BenchmarkCrawl(b *testing.B) {
	const n = 500
	s := benchSite(b, n)
	for _, text := range []bool{true, false} {
		b.Run(fmt.Sprintf("text=%v", text), func(b *testing.B) {
			cfg := testConfig(b)
			cfg.SkipText = !text
			c := New(cfg)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			pages := 0
			for b.Loop() {
				res, err := c.Run(context.Background(), &task.Task{ID: "b", Seeds: []string{s.URL + "/"}, MaxDepth: 64, MaxPages: n + 1}, discard{})
				if err != nil {
					b.Fatal(err)
				}
				if res.Stats.PagesFetched < n {
					b.Fatalf("fetched %d pages, want %d", res.Stats.PagesFetched, n)
				}
				pages += res.Stats.PagesFetched
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(pages), "allocs/page")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(pages), "B/page")
		})
	}
}

type discard struct{}

func (discard) Page(*task.Page) error { return nil }
