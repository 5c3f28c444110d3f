package sitemap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"time"
)

// MaxEntries is the protocol's limit on the URLs of one sitemap and on the
// sitemaps of one index, and Parse's default.
const MaxEntries = 50_000

// MaxLocBytes bounds one location: a longer <loc> or line is dropped (the
// protocol allows 2,048 characters).
const MaxLocBytes = 4096

// MaxTagBytes bounds one XML tag (from "<" to ">"): a sitemap's tags are
// short, and encoding/xml would keep every attribute of a longer one, about
// ten times its size in memory.
const MaxTagBytes = 64 << 10

// Kind is what a document turned out to be.
type Kind int

const (
	// Unknown: nothing was recognised.
	Unknown Kind = iota
	// URLSet is a <urlset>: its entries are pages.
	URLSet
	// Index is a <sitemapindex>: its entries are sitemaps.
	Index
	// Text is a plain-text sitemap: its entries are pages, one a line.
	Text
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	case Text:
		return "text"
	}
	return "unknown"
}

// Entry is one <url> of a urlset, one <sitemap> of an index, or one line of
// a text sitemap.
type Entry struct {
	// Loc is the location as written, surrounding spaces trimmed.
	Loc string
	// LastMod is the latest instant the entry's <lastmod> can mean, so
	// that "not modified after LastMod" never holds for a page that was:
	// the instant itself for a full date and time; the end of the minute,
	// day, month or year for a coarser value; and, for a value without a
	// time zone, that end in the westernmost zone (UTC−12). Zero when the
	// entry has no <lastmod> or it does not read as a W3C Datetime.
	LastMod time.Time
}

// Options bound one parse.
type Options struct {
	// MaxEntries is how many entries are kept; 0 = MaxEntries.
	MaxEntries int
}

// Sitemap is what one document listed.
type Sitemap struct {
	Kind    Kind
	Entries []Entry
	// Truncated is set when the document had more entries than
	// Options.MaxEntries; the rest were not read.
	Truncated bool
}

// Parse reads one sitemap from r, which must already be decompressed and
// bounded by the caller. It returns what it read even with an error: the
// entries before a break in the document (ErrMalformed, or r's own error,
// wrapped), or none with ErrNotSitemap.
func Parse(r io.Reader, opts Options) (*Sitemap, error) {
	limit := opts.MaxEntries
	if limit <= 0 {
		limit = MaxEntries
	}
	br := bufio.NewReader(r)
	c, err := firstByte(br)
	switch {
	case err == io.EOF:
		return &Sitemap{}, fmt.Errorf("%w: empty document", ErrNotSitemap)
	case err != nil:
		return &Sitemap{}, fmt.Errorf("read sitemap: %w", err)
	case c == '<':
		return parseXML(br, limit)
	}
	return parseText(br, limit)
}

// firstByte skips a UTF-8 byte order mark and white space and returns the
// next byte, left unread.
func firstByte(br *bufio.Reader) (byte, error) {
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if !isSpace(c) {
			return c, br.UnreadByte()
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
