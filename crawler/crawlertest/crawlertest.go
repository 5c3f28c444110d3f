// Package crawlertest helps tests that need a crawl's output: a spool of
// pages, as the crawler writes one, for an upload or a delivery.
package crawlertest

import (
	"path/filepath"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/task"
)

// Spool writes pages to a new spool in a temporary directory of t and
// returns its path.
func Spool(t testing.TB, pages []*task.Page) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spool")
	sp, err := crawler.OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if err := sp.Page(p); err != nil {
			sp.Close()
			t.Fatal(err)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
