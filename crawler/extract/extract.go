// Package extract turns a fetched page into what the crawler keeps: its
// title, outgoing links, robots directives and main text.
//
// PLACEHOLDER API: signatures are fixed; the implementation is being written.
package extract

import (
	"errors"
	"net/url"
)

// Link is one outgoing link, canonicalised and absolute.
type Link struct {
	URL      string
	NoFollow bool // rel="nofollow"
}

// Options select the work Parse does.
type Options struct {
	// Text extracts the main text (go-trafilatura, falling back to all
	// visible text). Without it Parse finds title, links and directives only.
	Text bool
}

// Page is a parsed page.
type Page struct {
	Title    string
	Links    []Link
	NoIndex  bool // meta robots noindex
	NoFollow bool // meta robots nofollow
	Text     string
}

// Parse decodes body (charset from contentType, meta tags or sniffing),
// parses it once and extracts what opts asks for. pageURL resolves relative
// links (a <base href> takes precedence). Plain-text bodies yield their text
// and no links.
func Parse(body []byte, contentType string, pageURL *url.URL, opts Options) (*Page, error) {
	return nil, errors.New("extract: not implemented yet")
}
