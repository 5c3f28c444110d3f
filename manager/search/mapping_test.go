package search

import (
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// Words without a field are looked for in the title and the text, with
// the query string's +, - and phrases, though no catch-all field is kept.
func TestQueryWithoutField(t *testing.T) {
	x, _, err := Open(filepath.Join(t.TempDir(), "search.bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(pages()); err != nil {
		t.Fatal(err)
	}
	if res, err := x.Search("_all:nectar", 10); err != nil || res.Total != 0 {
		t.Errorf("Search(_all:nectar) = %d pages (%v): the catch-all field is indexed", res.Total, err)
	}
	tests := []struct {
		q    string
		want int
	}{
		{"honey", 1},               // title and text
		{"bees", 1},                // title and text
		{"crawlers", 1},            // title only ("crawler" in the text too)
		{"+wasps +nests", 1},       // one in the title, both in the text
		{"insects -paper", 0},      // excluded by the text
		{"crawler -crawlers", 0},   // excluded by the title (stemmed alike)
		{`"honey bees"`, 1},        // a phrase of the title
		{"nectar wasps", 2},        // either word
		{"title:nectar", 0},        // a named field alone
		{"+nectar -title:bees", 0}, // a named field beside unnamed ones
	}
	for _, tt := range tests {
		res, err := x.Search(tt.q, 10)
		if err != nil {
			t.Fatalf("Search(%q): %v", tt.q, err)
		}
		if res.Total != uint64(tt.want) {
			t.Errorf("Search(%q) found %d pages, want %d", tt.q, res.Total, tt.want)
		}
	}
}

// An index made before the catch-all field was dropped still answers:
// its title and text were indexed by name as well.
func TestIndexWithCatchAllStillAnswers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "search.bleve")
	m := bleve.NewIndexMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = true
	text.IncludeTermVectors = true
	page := bleve.NewDocumentMapping()
	page.AddFieldMappingsAt("title", text)
	page.AddFieldMappingsAt("text", text)
	page.AddFieldMappingsAt("url", bleve.NewKeywordFieldMapping())
	page.AddFieldMappingsAt("channel", bleve.NewKeywordFieldMapping())
	page.AddFieldMappingsAt("fetched", bleve.NewDateTimeFieldMapping())
	m.DefaultMapping = page
	m.DefaultAnalyzer = en.AnalyzerName
	idx, err := bleve.New(path, m)
	if err != nil {
		t.Fatal(err)
	}
	b := idx.NewBatch()
	for _, p := range pages() {
		if err := b.Index(p.URL, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}

	x, moved, err := Open(path)
	if err != nil || moved != "" {
		t.Fatalf("Open = %v, moved %q", err, moved)
	}
	defer x.Close()
	for q, want := range map[string]int{"nectar": 1, "crawlers": 1, "insects -paper": 0, `"paper nests"`: 1} {
		res, err := x.Search(q, 10)
		if err != nil || res.Total != uint64(want) {
			t.Errorf("Search(%q) = %d pages (%v), want %d", q, res.Total, err, want)
		}
	}
	res, _ := x.Search("hive", 10)
	if len(res.Hits) != 1 || len(res.Hits[0].Snippet) == 0 {
		t.Errorf("Search(hive) = %+v, want one hit with a snippet", res.Hits)
	}
}
