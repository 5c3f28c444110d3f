// Package search is a full-text index over the text a manager stored, for
// solo mode: a user searches what their own client crawled. It is a bleve
// index (github.com/blevesearch/bleve/v2) beside the WARC files; the WARC
// files stay the record, so an index that cannot be opened is moved aside
// and started afresh rather than stopping the manager.
package search

import (
	"errors"
	"fmt"
	"html"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	zapx "github.com/blevesearch/zapx/v17"
)

// Limits on queries and what they return.
const (
	MaxQuery   = 500
	MaxResults = 100
	// maxIndexed bounds the text of one page that is indexed.
	maxIndexed = 256 << 10
)

// ErrBadQuery is the error of a query that cannot be read.
var ErrBadQuery = errors.New("bad query")

// Page is one stored page, as indexed.
type Page struct {
	URL     string    `json:"url"`
	Channel string    `json:"channel"`
	Title   string    `json:"title"`
	Text    string    `json:"text"`
	Fetched time.Time `json:"fetched"`
}

// Hit is one page that matches a query.
type Hit struct {
	URL     string    `json:"url"`
	Channel string    `json:"channel"`
	Title   string    `json:"title"`
	Fetched time.Time `json:"fetched"`
	Score   float64   `json:"score"`
	// Snippet is a passage of the text around the matches, as segments:
	// the matched words have Match set. Plain text, never markup.
	Snippet []Segment `json:"snippet"`
}

// Segment is a run of a snippet's text.
type Segment struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// Results are a query's answer.
type Results struct {
	Query string `json:"query"`
	Total uint64 `json:"total"`
	Hits  []Hit  `json:"hits"`
	Took  string `json:"took"`
}

// Index is an open index. Safe for concurrent use.
type Index struct {
	idx  bleve.Index
	path string

	closeOnce sync.Once
	closeErr  error
}

// Open opens the index at path (a directory), creating it when missing.
// An index that does not open is renamed path.broken-TIME and a new one
// made; moved says so. An index made while pages still went into the
// catch-all field _all is kept as it is: it indexed title and text by name
// too, so it answers the same queries, at the cost of its extra field.
func Open(path string) (x *Index, moved string, err error) {
	idx, err := bleve.OpenUsing(path, scorchConfig())
	switch {
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist):
		idx, err = newIndex(path)
	case err != nil:
		moved = fmt.Sprintf("%s.broken-%s", path, time.Now().UTC().Format("20060102T150405"))
		if rerr := os.Rename(path, moved); rerr != nil {
			return nil, "", fmt.Errorf("search index %s does not open (%w) and cannot be moved aside: %w", path, err, rerr)
		}
		idx, err = newIndex(path)
	}
	if err != nil {
		return nil, moved, fmt.Errorf("search index %s: %w", path, err)
	}
	return &Index{idx: idx, path: path}, moved, nil
}

func newIndex(path string) (bleve.Index, error) {
	return bleve.NewUsing(path, pageMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, scorchConfig())
}

// scorchConfig bounds what the index's background work holds: merged
// segments grow to at most mergeMaxDocs pages and a merge takes at most
// four of them, so that a merge maps and rewrites megabytes of segments,
// not the whole index; one persister works at a time. Options are read
// at every open, so they apply to indexes made before them as well.
func scorchConfig() map[string]any {
	return map[string]any{
		"scorchPersisterOptions": map[string]any{
			"NumPersisterWorkers": 1,
		},
		"scorchMergePlanOptions": map[string]any{
			"MaxSegmentSize":       mergeMaxDocs,
			"SegmentsPerMergeTask": 4,
		},
	}
}

// mergeMaxDocs is the most pages a merged segment holds.
const mergeMaxDocs = 200

func init() {
	// zap sizes the buffer of a batch's new segment as if the batch had
	// 100 documents more than it has, at the average size of the last
	// one: for the few pages of a search batch, a buffer of 10 MB around
	// a segment of 1 MB, and 100 times the segment for a batch of one.
	// Sized to the batch, it grows as it needs to.
	zapx.NewSegmentBufferNumResultsBump = 0
}

// pageMapping indexes title and text with the English analyser (stemming,
// stop words) and keeps the fields a hit shows. No field goes into the
// catch-all field _all: queries name title and text (see parse), and _all
// would index each page's text twice. No field keeps doc values (bleve's
// default), which serve only sorting and facets by a field: for the text
// they are every term of every page once more, built with each batch and
// rewritten by each merge.
func pageMapping() mapping.IndexMapping {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = true
	text.IncludeTermVectors = true // for phrases and snippets
	text.IncludeInAll = false
	text.DocValues = false
	keyword := bleve.NewKeywordFieldMapping()
	keyword.IncludeInAll = false
	keyword.IncludeTermVectors = false
	keyword.DocValues = false
	when := bleve.NewDateTimeFieldMapping()
	when.IncludeInAll = false
	when.DocValues = false
	page := bleve.NewDocumentMapping()
	page.Dynamic = false
	page.AddFieldMappingsAt("title", text)
	page.AddFieldMappingsAt("text", text)
	page.AddFieldMappingsAt("url", keyword)
	page.AddFieldMappingsAt("channel", keyword)
	page.AddFieldMappingsAt("fetched", when)
	m := bleve.NewIndexMapping()
	m.DefaultMapping = page
	m.DefaultAnalyzer = en.AnalyzerName
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	return m
}

// Close closes the index; closing it again returns the first result.
func (x *Index) Close() error {
	x.closeOnce.Do(func() { x.closeErr = x.idx.Close() })
	return x.closeErr
}

// Add indexes pages, replacing what was indexed under their URLs, in one
// batch. A nil Index indexes nothing.
func (x *Index) Add(pages []Page) error {
	if x == nil || len(pages) == 0 {
		return nil
	}
	b := x.idx.NewBatch()
	for _, p := range pages {
		if len(p.Text) > maxIndexed {
			p.Text = p.Text[:maxIndexed]
		}
		if err := b.Index(p.URL, p); err != nil {
			return fmt.Errorf("index %s: %w", p.URL, err)
		}
	}
	if err := x.idx.Batch(b); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}

// Count returns the pages indexed.
func (x *Index) Count() (uint64, error) { return x.idx.DocCount() }

// Search finds up to n pages matching q, best first. q is a query string
// (words, "a phrase", +must, -not, title:word), as bleve reads it.
func (x *Index) Search(q string, n int) (Results, error) {
	q = strings.TrimSpace(q)
	switch {
	case q == "":
		return Results{}, fmt.Errorf("%w: no words", ErrBadQuery)
	case len(q) > MaxQuery:
		return Results{}, fmt.Errorf("%w: %d bytes, at most %d", ErrBadQuery, len(q), MaxQuery)
	}
	qq, err := parse(q)
	if err != nil {
		return Results{}, fmt.Errorf("%w %q: %v", ErrBadQuery, q, err)
	}
	n = max(1, min(n, MaxResults))
	req := bleve.NewSearchRequestOptions(qq, n, 0, false)
	req.Fields = []string{"url", "channel", "title", "fetched"}
	req.Highlight = bleve.NewHighlightWithStyle("html")
	req.Highlight.AddField("text")
	res, err := x.idx.Search(req)
	if err != nil {
		return Results{}, fmt.Errorf("search %q: %w", q, err)
	}
	out := Results{Query: q, Total: res.Total, Hits: make([]Hit, 0, len(res.Hits)), Took: res.Took.Round(time.Microsecond).String()}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, hit(h))
	}
	return out, nil
}

func hit(h *bsearch.DocumentMatch) Hit {
	str := func(k string) string { s, _ := h.Fields[k].(string); return s }
	out := Hit{URL: h.ID, Channel: str("channel"), Title: str("title"), Score: h.Score}
	if t, err := time.Parse(time.RFC3339, str("fetched")); err == nil {
		out.Fetched = t
	}
	if frags := h.Fragments["text"]; len(frags) > 0 {
		out.Snippet = segments(frags[0])
	}
	return out
}

// segments splits a fragment of bleve's html highlighter (text escaped,
// matches in <mark>) into plain-text segments.
func segments(frag string) []Segment {
	var out []Segment
	for frag != "" {
		before, rest, found := strings.Cut(frag, "<mark>")
		if before != "" {
			out = append(out, Segment{Text: html.UnescapeString(before)})
		}
		if !found {
			break
		}
		word, after, _ := strings.Cut(rest, "</mark>")
		out = append(out, Segment{Text: html.UnescapeString(word), Match: true})
		frag = after
	}
	return out
}
