package storage

import (
	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/manager/search"
	"github.com/hivecrawl/hivecrawl/task"
)

// Bounds of one search batch: the search index analyses a batch whole, and
// holds many times its text while it does (term vectors for phrases and
// snippets), so a result is indexed a few pages at a time: pages of
// documentation (10 to 40 KB of text) one or two at a time. Storing a
// 1,000-page result of 40 KB pages peaked at 87 to 95 MB with batches of
// 64 KB, 102 to 104 MB with four pages and 133 to 137 MB with sixteen.
const (
	searchBatchText  = 64 << 10
	searchBatchPages = 16
)

// index adds the pages at positions found (ascending) of pages to the
// search index, under the canonical URLs keyOf gives them, in batches of
// at most searchBatchText bytes of text (or one page) and searchBatchPages
// pages.
func (s *Storage) index(channel string, pages pageSource, keyOf []string, found []int) error {
	if s.opts.Search == nil || len(found) == 0 {
		return nil
	}
	var (
		batch []search.Page
		size  int
	)
	err := pages.Each(func(i int, p *task.Page) error {
		if len(found) == 0 || found[0] != i {
			return nil
		}
		found = found[1:]
		text, err := export.Text(p)
		if err != nil {
			return nil // not stored either
		}
		if size > 0 && size+len(text) > searchBatchText {
			if err := s.opts.Search.Add(batch); err != nil {
				return err
			}
			batch, size = batch[:0], 0
		}
		batch = append(batch, search.Page{URL: keyOf[i], Channel: channel, Title: p.Title, Text: text, Fetched: p.FetchedAt})
		size += len(text)
		if len(batch) >= searchBatchPages {
			if err := s.opts.Search.Add(batch); err != nil {
				return err
			}
			batch, size = batch[:0], 0
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.opts.Search.Add(batch)
}
