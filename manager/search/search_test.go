package search

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

func pages() []Page {
	return []Page{
		{URL: "http://a.example/bees", Channel: "a.example", Title: "Honey bees", Text: "Honey bees forage for nectar. A hive keeps <script>alert(1)</script> its queen warm.", Fetched: t0},
		{URL: "http://a.example/wasps", Channel: "a.example", Title: "Wasps", Text: "Wasps build paper nests and hunt other insects.", Fetched: t0},
		{URL: "http://b.example/", Channel: "b.example", Title: "Crawlers", Text: "A polite crawler waits between requests to the same host.", Fetched: t0},
	}
}

func TestSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "search.bleve")
	x, moved, err := Open(path)
	if err != nil || moved != "" {
		t.Fatalf("Open = %v, moved %q", err, moved)
	}
	if err := x.Add(pages()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		want []string // URLs, best first; nil wants no hit
	}{
		{"nectar", []string{"http://a.example/bees"}},
		{"foraging", []string{"http://a.example/bees"}}, // stemmed
		{`"paper nests"`, []string{"http://a.example/wasps"}},
		{"title:crawlers", []string{"http://b.example/"}},
		{"insects -wasps", nil},
		{"marmalade", nil},
	}
	for _, tt := range tests {
		res, err := x.Search(tt.q, 10)
		if err != nil {
			t.Fatalf("Search(%q): %v", tt.q, err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.URL)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") || res.Total != uint64(len(tt.want)) {
			t.Errorf("Search(%q) = %v (total %d), want %v", tt.q, got, res.Total, tt.want)
		}
	}

	res, _ := x.Search("hive", 10)
	h := res.Hits[0]
	var text, marked strings.Builder
	for _, s := range h.Snippet {
		text.WriteString(s.Text)
		if s.Match {
			marked.WriteString(s.Text)
		}
	}
	if h.Title != "Honey bees" || h.Channel != "a.example" || !h.Fetched.Equal(t0) ||
		marked.String() != "hive" || !strings.Contains(text.String(), "<script>alert(1)</script>") {
		t.Errorf("hit %+v: snippet %q, marked %q; want the page's own text, unescaped, with the match marked", h, text.String(), marked.String())
	}

	for _, q := range []string{"", "   ", strings.Repeat("a", MaxQuery+1), `title:"open`} {
		if _, err := x.Search(q, 10); !errors.Is(err, ErrBadQuery) {
			t.Errorf("Search(%.20q) took a bad query", q)
		}
	}

	// A page crawled again replaces its old text.
	again := pages()[1]
	again.Text = "Wasps now make honey too."
	if err := x.Add([]Page{again}); err != nil {
		t.Fatal(err)
	}
	if res, _ := x.Search("paper", 10); res.Total != 0 {
		t.Errorf("the old text of a recrawled page is still found: %+v", res.Hits)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	x, _, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if n, _ := x.Count(); n != 3 {
		t.Fatalf("%d pages after reopening, want 3", n)
	}
}

func TestBrokenIndexMovedAside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "search.bleve")
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "index_meta.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	x, moved, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if moved == "" {
		t.Fatal("a broken index was not moved aside")
	}
	if _, err := os.Stat(filepath.Join(moved, "index_meta.json")); err != nil {
		t.Fatalf("the broken index is not kept at %s: %v", moved, err)
	}
	if err := x.Add(pages()); err != nil {
		t.Fatal(err)
	}
}

// FuzzQuery: any query string gets an answer or an error, never a panic,
// and snippets never carry markup the page did not have.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{"nectar", `"paper nests"`, "title:x", "+a -b", "a~2", "/re.*x/", "fetched:>2026", "*", `\`, "(", "a:b:c"} {
		f.Add(q)
	}
	x, _, err := Open(filepath.Join(f.TempDir(), "search.bleve"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { x.Close() })
	if err := x.Add(pages()); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		res, err := x.Search(q, 5)
		if err != nil {
			return
		}
		for _, h := range res.Hits {
			for _, s := range h.Snippet {
				if strings.Contains(s.Text, "<mark>") {
					t.Fatalf("snippet segment %q carries markup", s.Text)
				}
			}
		}
	})
}
