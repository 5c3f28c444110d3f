package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/markusmobius/go-trafilatura"
)

// crawlColly crawls every seed's host with one Colly collector configured
// as Hivecrawl is: asynchronous, one request at a time per host (a
// LimitRule per host), no delay, robots.txt honoured, links followed to the
// same depth, a 10 MiB body limit, HTML only, one keep-alive connection per
// host. With text, each page's main text is extracted with go-trafilatura
// using the settings of Hivecrawl's crawler/extract.
func crawlColly(ctx context.Context, seeds []string, o options, text bool) (int64, error) {
	c := colly.NewCollector(
		colly.Async(true),
		colly.MaxDepth(o.depth+1), // Colly counts the seed as depth 1
		colly.MaxBodySize(10<<20),
		colly.UserAgent("hivecrawl"),
		colly.StdlibContext(ctx),
	)
	c.IgnoreRobotsTxt = false
	c.WithTransport(&http.Transport{
		MaxIdleConns:        0, // no total cap
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		IdleConnTimeout:     time.Minute,
	})
	c.SetRequestTimeout(30 * time.Second)
	for _, s := range seeds {
		u, err := url.Parse(s)
		if err != nil {
			return 0, err
		}
		if err := c.Limit(&colly.LimitRule{DomainGlob: u.Host, Parallelism: 1}); err != nil {
			return 0, err
		}
	}
	var errs atomic.Int64
	var mu sync.Mutex
	seen := make(map[string]bool) // distinct pages, guarded by mu
	c.OnResponseHeaders(func(r *colly.Response) {
		if !strings.Contains(r.Headers.Get("Content-Type"), "html") {
			r.Request.Abort()
		}
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		e.Request.Visit(e.Attr("href")) // errors are already-visited, robots, depth
	})
	c.OnResponse(func(r *colly.Response) {
		if r.StatusCode != 200 {
			return
		}
		mu.Lock()
		seen[r.Request.URL.String()] = true
		mu.Unlock()
		if text {
			res, err := trafilatura.Extract(bytes.NewReader(r.Body), trafilatura.Options{
				// The settings of Hivecrawl's crawler/extract.
				OriginalURL:     r.Request.URL,
				Focus:           trafilatura.Balanced,
				ExcludeComments: true,
				HtmlDateMode:    trafilatura.Disabled,
			})
			if err != nil || res == nil || res.ContentText == "" {
				errs.Add(1)
			}
		}
	})
	var seedErrs []string
	for _, s := range seeds {
		// Visit fetches robots.txt first; a failure costs that host.
		if err := c.Visit(s); err != nil {
			seedErrs = append(seedErrs, err.Error())
		}
	}
	c.Wait()
	if len(seedErrs) > 0 {
		fmt.Printf("  colly: %d hosts not crawled, first error: %s\n", len(seedErrs), seedErrs[0])
	}
	if n := errs.Load(); n > 0 {
		return 0, fmt.Errorf("no text extracted from %d pages", n)
	}
	return int64(len(seen)), ctx.Err()
}
