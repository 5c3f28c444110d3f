package cheat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/task"
)

func crawl(n int) []*task.Page {
	var out []*task.Page
	for i := range n {
		text := fmt.Sprintf("Page %d of the site. It tells its readers something true. It ends here.", i)
		out = append(out, &task.Page{URL: fmt.Sprintf("http://site.example/%d", i), Status: 200,
			Text: []byte(text), TextBytes: len(text), Digest: task.DigestString(text)})
	}
	return out
}

// TestPartialAndSubtle: partial mode replaces one page in ten (at least
// one) by an invented page and keeps the rest as crawled; subtle mode
// keeps every page and inserts a spam sentence with its link in each.
// Only the pages that are not as the web served them are logged as
// forged, so the demo counts what validation let through and nothing
// else.
func TestPartialAndSubtle(t *testing.T) {
	d := taskmgr.Delivery{TaskID: "site.example/1/0"}
	tests := []struct {
		mode          string
		pages, forged int
	}{
		{adversary.Partial, 25, 3},
		{adversary.Partial, 4, 1},
		{adversary.Subtle, 12, 12},
		{adversary.Alter, 5, 5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.mode, tt.pages), func(t *testing.T) {
			u := &Uploader{Mode: tt.mode}
			real := crawl(tt.pages)
			out := u.forge(d, "site.example", real)
			if len(out) != tt.pages {
				t.Fatalf("%d pages uploaded, want the crawl's %d", len(out), tt.pages)
			}
			forged := falsePages(out, real)
			if len(forged) != tt.forged {
				t.Fatalf("%d pages forged, want %d", len(forged), tt.forged)
			}
			for _, p := range forged {
				switch tt.mode {
				case adversary.Partial:
					if !strings.HasPrefix(p.URL, "http://site.example/partial-") {
						t.Fatalf("partial forgery %s is not an invented page", p.URL)
					}
				case adversary.Subtle:
					if !strings.Contains(string(p.Text), "https://watches.example/") || !strings.Contains(string(p.Text), "something true") {
						t.Fatalf("subtle forgery %q: want the page's text with the spam sentence", p.Text)
					}
					if p.Digest != task.DigestString(string(p.Text)) {
						t.Fatal("subtle forgery's digest is not its text's")
					}
				}
			}
		})
	}
}
