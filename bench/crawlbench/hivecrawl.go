package main

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/task"
)

// countSink counts pages fetched with status 200.
type countSink struct{ n *atomic.Int64 }

func (s countSink) Page(p *task.Page) error {
	if p.Status == 200 {
		s.n.Add(1)
	}
	return nil
}

// crawlHivecrawl runs one task per seed, all at once, with one Crawler:
// no politeness wait, loopback allowed, text extraction as asked.
func crawlHivecrawl(ctx context.Context, seeds []string, o options, text bool) (int64, error) {
	c := crawler.New(crawler.Config{
		NoDelay:       true,
		AllowLoopback: true,
		SkipText:      !text,
		MaxPages:      o.pages * 2,
	})
	var pages atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(seeds))
	for k, s := range seeds {
		u, err := url.Parse(s)
		if err != nil {
			return 0, err
		}
		t := &task.Task{ID: fmt.Sprintf("bench-%d", k), Channel: u.Host, Seeds: []string{s}, MaxDepth: o.depth}
		wg.Go(func() {
			if _, err := c.Run(ctx, t, countSink{&pages}); err != nil {
				errs <- fmt.Errorf("task %s: %w", t.ID, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	return pages.Load(), <-errs
}
