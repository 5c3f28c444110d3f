package sitemap

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// maxLastModBytes bounds a <lastmod> value; the longest W3C Datetime with
// nanoseconds is 35 bytes.
const maxLastModBytes = 64

// parseXML reads a <urlset> or <sitemapindex> with RawToken, counting the
// depth itself: entries are the root's <url> or <sitemap> children, and
// their <loc> and <lastmod> children, in the root's namespace prefix.
func parseXML(r io.Reader, limit int) (*Sitemap, error) {
	src := &tagLimiter{r: r}
	d := xml.NewDecoder(src)
	d.Strict = false // a raw "&" in a URL is common; take it literally
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	sm := &Sitemap{}
	var (
		depth         int
		prefix, entry string // the root's namespace prefix; "url" or "sitemap"
		inEntry       bool
		field         string // "loc" or "lastmod" while inside one
		loc, mod      strings.Builder
		badLoc        bool // <loc> longer than MaxLocBytes
	)
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			switch {
			case sm.Kind == Unknown:
				return sm, fmt.Errorf("%w: no root element", ErrNotSitemap)
			case depth > 0:
				return sm, fmt.Errorf("%w: document ends before </%s>", ErrMalformed, sm.Kind)
			}
			return sm, nil
		}
		if err != nil {
			if src.err != nil { // the reader's own error: a cap, a broken body
				return sm, fmt.Errorf("read sitemap: %w", src.err)
			}
			return sm, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			local, own := t.Name.Local, t.Name.Space == prefix
			switch {
			case depth == 1:
				switch local {
				case "urlset":
					sm.Kind, entry = URLSet, "url"
				case "sitemapindex":
					sm.Kind, entry = Index, "sitemap"
				default:
					return sm, fmt.Errorf("%w: root element <%s>", ErrNotSitemap, clip(local))
				}
				prefix = t.Name.Space
			case depth == 2 && own && local == entry:
				if len(sm.Entries) >= limit {
					sm.Truncated = true
					return sm, nil
				}
				inEntry, badLoc = true, false
				loc.Reset()
				mod.Reset()
			case depth == 3 && inEntry && own && (local == "loc" || local == "lastmod"):
				field = local
			}
		case xml.EndElement:
			switch {
			case depth == 3:
				field = ""
			case depth == 2 && inEntry:
				inEntry = false
				if s := strings.TrimSpace(loc.String()); s != "" && !badLoc {
					sm.Entries = append(sm.Entries, Entry{Loc: s, LastMod: parseLastMod(mod.String())})
				}
			case depth <= 1:
				if sm.Kind == Unknown {
					return sm, fmt.Errorf("%w: no root element", ErrNotSitemap)
				}
				return sm, nil // the root is closed; what follows is not read
			}
			depth--
		case xml.CharData:
			if depth != 3 || field == "" {
				continue
			}
			if field == "loc" {
				if loc.Len()+len(t) > MaxLocBytes {
					badLoc = true
					continue
				}
				loc.Write(t)
			} else if mod.Len()+len(t) <= maxLastModBytes {
				mod.Write(t)
			}
		}
	}
}

// clip shortens a name quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

var errTagTooLong = fmt.Errorf("tag longer than %d bytes", MaxTagBytes)

// tagLimiter fails a read once a tag (from "<" to ">") runs longer than
// MaxTagBytes; text between tags is not limited here. It keeps the
// underlying reader's error, to tell it from the decoder's own.
type tagLimiter struct {
	r     io.Reader
	inTag bool
	n     int
	err   error // the underlying reader's, other than io.EOF
}

func (l *tagLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF {
		l.err = err
	}
	for i, c := range p[:n] {
		switch {
		case c == '<':
			l.inTag, l.n = true, 0
		case c == '>':
			l.inTag = false
		case l.inTag:
			if l.n++; l.n > MaxTagBytes {
				return i, errTagTooLong
			}
		}
	}
	return n, err
}
