package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// PageLine is one page in JSON lines output.
type PageLine struct {
	Type      string    `json:"type"` // "page"
	URL       string    `json:"url"`
	FinalURL  string    `json:"final_url,omitempty"`
	Status    int       `json:"status"`
	FetchedAt time.Time `json:"fetched_at"`
	Depth     int       `json:"depth"`
	Digest    string    `json:"digest,omitempty"` // 8 hex digits
	Title     string    `json:"title,omitempty"`
	Text      string    `json:"text,omitempty"`
	OutLinks  int       `json:"out_links"`
	Unchanged bool      `json:"unchanged,omitempty"`
	NoIndex   bool      `json:"noindex,omitempty"`
	Error     string    `json:"error,omitempty"`
	// Refused and Signals are the page's content signals
	// (task.Page.Refused and Signals).
	Refused string `json:"refused,omitempty"`
	Signals string `json:"signals,omitempty"`

	// DuplicateOf is the canonical URL of a page recorded as its
	// duplicate (task.Page.DuplicateOf).
	DuplicateOf string `json:"duplicate_of,omitempty"`
}

// SummaryLine is the last line of JSON lines output.
type SummaryLine struct {
	Type string `json:"type"` // "summary"
	*task.Result
}

// JSONL writes one JSON object per line: a PageLine per page, then a
// SummaryLine. It buffers; Close flushes. It is not safe for concurrent use.
type JSONL struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

// NewJSONL returns a JSONL writing to w.
func NewJSONL(w io.Writer) *JSONL {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSONL{bw: bw, enc: enc}
}

// Page writes p's line. It makes *JSONL a crawler.Sink.
func (j *JSONL) Page(p *task.Page) error {
	text, err := Text(p)
	if err != nil {
		return fmt.Errorf("export page %s: %w", p.URL, err)
	}
	line := PageLine{
		Type:      "page",
		URL:       p.URL,
		FinalURL:  p.FinalURL,
		Status:    p.Status,
		FetchedAt: p.FetchedAt.UTC(),
		Depth:     p.Depth,
		Title:     p.Title,
		Text:      text,
		OutLinks:  p.OutLinks,
		Unchanged: p.Unchanged,
		NoIndex:   p.NoIndex,
		Error:     p.Error,
		Refused:   p.Refused,
		Signals:   p.Signals,

		DuplicateOf: p.DuplicateOf,
	}
	if p.Digest != 0 || p.Status == 200 {
		line.Digest = fmt.Sprintf("%08x", uint32(p.Digest))
	}
	if err := j.enc.Encode(&line); err != nil {
		return fmt.Errorf("write page %s: %w", p.URL, err)
	}
	return nil
}

// Summary writes the summary line. Call it once, after the last page.
func (j *JSONL) Summary(r *task.Result) error {
	if err := j.enc.Encode(SummaryLine{Type: "summary", Result: r}); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// Flush writes buffered lines to the underlying writer.
func (j *JSONL) Flush() error {
	if err := j.bw.Flush(); err != nil {
		return fmt.Errorf("flush json lines: %w", err)
	}
	return nil
}

// Close flushes. It does not close the underlying writer.
func (j *JSONL) Close() error { return j.Flush() }
