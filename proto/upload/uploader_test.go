package upload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// page is page u with its text.
func page(u, text string) *task.Page {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return &task.Page{URL: u, Status: 200, FetchedAt: t0, Digest: task.DigestString(text), Text: []byte(text), TextBytes: len(text), Title: "T " + u}
}

// rawPage is page u with text and its raw response body html.
func rawPage(u, text, html string) *task.Page {
	p := page(u, text)
	p.Raw, p.RawCompression = textcodec.Encode([]byte(html))
	p.RawBytes = len(html)
	p.Header = map[string][]string{"Content-Type": {"text/html; charset=utf-8"}}
	return p
}

// TestRawBudget: raw responses go with their pages, in spool order, while
// each page's message and the whole upload stay within their limits; the
// text of every page goes in any case.
func TestRawBudget(t *testing.T) {
	pages := []*task.Page{
		page("http://site.example/plain", "plain"),
		rawPage("http://site.example/a", "a", "<p>a</p>"),
		rawPage("http://site.example/b", "b", "<p>b</p>"),
		rawPage("http://site.example/c", "c", "<p>c</p>"),
	}
	pages[2].Raw = bytes.Repeat([]byte("x"), 3000) // b's raw body is large
	path := filepath.Join(t.TempDir(), "spool")
	sp, err := crawler.OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	var with, extra []int
	text := 0
	for _, p := range pages {
		if err := sp.Page(p); err != nil {
			t.Fatal(err)
		}
		w, _ := json.Marshal(p)
		c := *p
		c.DropRaw()
		wo, _ := json.Marshal(&c)
		with, extra, text = append(with, len(w)), append(extra, len(w)-len(wo)), text+len(wo)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		maxPage, maxTotal int
		want              []bool
	}{
		{"room for all", 1 << 20, 1 << 20, []bool{false, true, true, true}},
		{"a page over its limit", with[2] - 1, 1 << 20, []bool{false, true, false, true}},
		{"no room for b", 1 << 20, text + extra[1] + extra[3], []bool{false, true, false, true}},
		{"room for a only", 1 << 20, text + extra[1], []bool{false, true, false, false}},
		{"text only", 1 << 20, text, []bool{false, false, false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rawBudgetWithin(path, tc.maxPage, tc.maxTotal)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("rawBudget = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
