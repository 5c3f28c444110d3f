package extract

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// Link is one outgoing link, canonicalised and absolute.
type Link struct {
	URL      string
	NoFollow bool // rel="nofollow" on every occurrence of the link
}

// DefaultUserAgent is the product token matched by <meta name="..."> robots
// directives when Options.UserAgent is empty.
const DefaultUserAgent = "hivecrawl"

// Options select the work Parse does.
type Options struct {
	// Text extracts the main text (go-trafilatura, falling back to all
	// visible text). Without it Parse finds title, links and directives only.
	Text bool
	// UserAgent is the crawler's product token: <meta name="TOKEN"> robots
	// directives apply as well as <meta name="robots">. Default "hivecrawl".
	UserAgent string
	// MaxLinks caps the links returned (the first ones in document order);
	// 0 = unlimited.
	MaxLinks int
}

// Page is a parsed page.
type Page struct {
	// Title is the first <title>, else og:title, whitespace collapsed.
	Title string
	// Links are the page's <a href>, <area href>, <frame src> and
	// <meta http-equiv=refresh> targets, canonical, absolute http(s),
	// de-duplicated, in document order; listed even when NoFollow is set.
	Links    []Link
	NoIndex  bool // meta robots (or meta UserAgent) noindex or none
	NoFollow bool // meta robots (or meta UserAgent) nofollow or none
	// Text is the main text (Options.Text): one paragraph per line,
	// whitespace collapsed, soft hyphens dropped, valid UTF-8 in Unicode
	// normal form C.
	Text string
	// Canonical is the page's <link rel="canonical">, canonicalised;
	// empty when absent or unusable.
	Canonical string
	// Language is the language the page declares (<html lang>), as its
	// ISO 639 code ("en" for "en-GB"); empty when it declares none. It is
	// not detected from the text (see the package comment).
	Language string
}

// Parse decodes body (charset from contentType, meta tags or sniffing),
// parses it once and extracts what opts asks for. pageURL resolves relative
// links (a <base href> takes precedence). Plain-text bodies yield their text
// and no links. An empty contentType is sniffed. Errors wrap ErrContentType
// for bodies that are neither HTML nor text.
func Parse(body []byte, contentType string, pageURL *url.URL, opts Options) (*Page, error) {
	kind, err := kindOf(body, contentType)
	if err != nil {
		return nil, err
	}
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	valid := utf8.Valid(body)
	if !certain && valid {
		// Neither the header nor a byte order mark named the charset, and
		// the body is valid UTF-8: it is UTF-8 (a page in a legacy
		// charset with bytes above 0x7F is almost never valid UTF-8).
		// DetermineEncoding guesses windows-1252 for a page whose first
		// 1024 bytes are ASCII and do not declare its charset.
		name = "utf-8"
	}
	decoded := func() io.Reader {
		if name == "utf-8" && valid {
			return bytes.NewReader(body) // the common case needs no decoder
		}
		return transform.NewReader(bytes.NewReader(body), enc.NewDecoder())
	}
	r := decoded()
	if kind == plainText {
		p := &Page{}
		if !opts.Text {
			return p, nil
		}
		if name == "utf-8" && valid {
			// A view of the body, not a copy of up to 10 MB: normalizeText
			// only reads it, and returns a string of its own.
			p.Text = normalizeText(unsafe.String(unsafe.SliceData(body), len(body)))
			return p, nil
		}
		text, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("decode text body: %w", err)
		}
		p.Text = normalizeText(string(text))
		return p, nil
	}
	ua := opts.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	stream := func() (*Page, error) {
		s, text, err := scanTokens(cutRuns(decoded()), pageURL, ua, opts.MaxLinks, opts.Text, len(body)/2)
		if err != nil {
			return nil, fmt.Errorf("parse html: %w", err)
		}
		p := s.page()
		p.Text = text
		return p, nil
	}
	if !treeFits(body, r) {
		// Too many nodes for a tree in bounded memory: stream it.
		return stream()
	}
	doc, err := html.Parse(cutRuns(decoded()))
	if err != nil {
		// Too deeply nested for a tree: read it as tokens instead.
		return stream()
	}
	s := scan(doc, pageURL, ua, opts.MaxLinks)
	if late, ok := lateCharset(s.charset, name, certain || valid); ok {
		// A <meta> charset past the first 1024 bytes, which the browser
		// honours by parsing again: so does Parse, once.
		enc, name = late, s.charset
		if doc, err = html.Parse(cutRuns(decoded())); err != nil {
			return stream()
		}
		s = scan(doc, pageURL, ua, opts.MaxLinks)
	}
	p := s.page()
	if opts.Text {
		p.Text = mainText(doc, pageURL, s)
	}
	return p, nil
}

// lateCharset returns the encoding a page's <meta> declares when it must be
// parsed again in it: the charset used was a guess (not from the header, a
// byte order mark or valid UTF-8) and the declaration names another one.
func lateCharset(declared, used string, sure bool) (encoding.Encoding, bool) {
	if sure || declared == "" {
		return nil, false
	}
	enc, name := charset.Lookup(declared)
	if enc == nil || name == used || name == "utf-8" {
		// utf-8 cannot be right: the body is not valid UTF-8.
		return nil, false
	}
	return enc, true
}

func (s scanned) page() *Page {
	return &Page{
		Title:     s.title,
		Links:     s.links,
		Canonical: s.canonical,
		Language:  s.lang,
		NoIndex:   s.noIndex,
		NoFollow:  s.noFollow,
	}
}

type bodyKind int

const (
	htmlText bodyKind = iota
	plainText
)

// kindOf classifies the body by its media type, sniffing when the header is
// missing or unparsable.
func kindOf(body []byte, contentType string) (bodyKind, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch {
	case mt == "text/html", mt == "application/xhtml+xml":
		return htmlText, nil
	case mt == "text/css", mt == "text/javascript":
		return 0, fmt.Errorf("media type %q: %w", mt, ErrContentType)
	case strings.HasPrefix(mt, "text/"):
		return plainText, nil
	}
	return 0, fmt.Errorf("media type %q: %w", mt, ErrContentType)
}
