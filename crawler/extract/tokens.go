package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxTreeTokens bounds the start tags and text runs of a document that is
// parsed into a tree; larger documents are streamed (scanTokens). A tree
// costs 150–550 bytes a token as measured on hostile pages (the tree
// builder adds nodes when it reopens formatting elements), so the bound
// keeps a tree under about 70 MB whatever the page's shape. Trafilatura
// sees no tree above MaxTrafilaturaElements anyway, so a larger tree would
// buy only the visible text that streaming gives too.
const MaxTreeTokens = 120_000

// treeFits reports whether the document has at most MaxTreeTokens start
// tags and text runs; r reads body decoded. Every start tag begins with
// '<' and text runs lie between tags, so a body with few '<' fits without
// reading it (most pages); otherwise the tokenizer reads r, keeping
// nothing, up to the first token over.
func treeFits(body []byte, r io.Reader) bool {
	if 2*bytes.Count(body, []byte("<"))+1 <= MaxTreeTokens {
		return true
	}
	z := html.NewTokenizer(r)
	for n := 0; ; {
		switch z.Next() {
		case html.ErrorToken:
			return true
		case html.StartTagToken, html.SelfClosingTagToken, html.TextToken:
			if n++; n > MaxTreeTokens {
				return false
			}
		}
	}
}

// scanTokens is the fallback for documents that golang.org/x/net/html
// refuses to build a tree for (nesting deeper than 512 open elements, as in
// pages with thousands of unclosed tags): one pass of the tokenizer finds
// the same title, robots meta, base and links, and, when text is wanted,
// the visible text, rendered as visibleText renders a tree (line breaks
// in the source are spaces outside <pre>) and without permalink marks.
// Without a tree, main-text extraction is not possible. textHint sizes
// the text's builder at the start (half the body, from Parse): grown by
// doubling, 6 MB of text cost 39 MB of allocations.
func scanTokens(r io.Reader, pageURL *url.URL, userAgent string, maxLinks int, text bool, textHint int) (scanned, string, error) {
	var (
		c       = newCollector(userAgent, maxLinks)
		sb      strings.Builder
		hidden  int // depth inside elements whose text is not visible
		foreign int // depth inside <svg> and <math>
		inert   int // depth inside <template>
		pre     int // depth inside <pre>, where line breaks show
		inTitle bool
		title   strings.Builder
		attrs   []html.Attribute
		// mark holds the text of an <a> that may be a permalink mark
		// (isPermalinkMark) until its end tag says; markHref is its
		// href, inMark whether one is open.
		mark     strings.Builder
		markHref string
		inMark   bool
	)
	// endMark writes the text held for an <a> unless it is a permalink
	// mark, and stops holding text.
	endMark := func() {
		switch {
		case !inMark:
		case isPermalinkMark(markHref, mark.String()):
			sb.WriteByte(' ') // as dropPermalinks does
		default:
			writeFlowText(&sb, mark.String())
		}
		inMark = false
		mark.Reset()
	}
	if text {
		sb.Grow(textHint)
	}
	z := html.NewTokenizer(r)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return scanned{}, "", fmt.Errorf("tokenize html: %w", err)
			}
			if inTitle {
				c.title(title.String())
			}
			endMark()
			s := c.finish(pageURL, maxLinks)
			if !text {
				return s, "", nil
			}
			return s, normalizeText(sb.String()), nil
		case html.TextToken:
			switch {
			case inTitle:
				title.Write(z.Text())
			case hidden == 0 && foreign == 0 && inert == 0 && text && inMark:
				mark.Write(z.Text())
				if mark.Len() > maxMarkBytes {
					endMark()
				}
			case hidden == 0 && foreign == 0 && inert == 0 && text && pre > 0:
				sb.Write(z.Text())
			case hidden == 0 && foreign == 0 && inert == 0 && text:
				writeFlowText(&sb, string(z.Text()))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Title && inTitle:
				inTitle = false
				c.title(title.String())
			case a == atom.Template && inert > 0:
				inert--
			case (a == atom.Svg || a == atom.Math) && foreign > 0:
				foreign--
			case skipped[a] && hidden > 0:
				hidden--
			case a == atom.Pre && pre > 0:
				pre--
			}
			if a == atom.A || blocks[a] {
				endMark()
			}
			if blocks[a] {
				sb.WriteByte('\n')
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			c.s.elements++
			attrs = readAttrs(z, hasAttr, attrs[:0])
			if a == atom.A || blocks[a] {
				endMark()
			}
			if blocks[a] {
				sb.WriteByte('\n')
			}
			open := tt == html.StartTagToken && !isVoid(a)
			switch {
			case a == atom.Template:
				if open {
					inert++
				}
			case a == atom.Svg || a == atom.Math:
				if open {
					foreign++
				}
			case skipped[a] && a != atom.Head:
				// <head> is not counted: its end tag is often missing,
				// which would hide the whole page.
				if open {
					hidden++
				}
			case inert > 0 || foreign > 0:
			case a == atom.Pre:
				if open {
					pre++
				}
			case a == atom.Title:
				inTitle = open
				title.Reset()
			default:
				c.element(a, attrs)
				if href, ok := attr(attrs, "href"); ok && a == atom.A && text && tt == html.StartTagToken && strings.Contains(href, "#") {
					inMark, markHref = true, href
				}
			}
		}
	}
}

// readAttrs appends a tag's attributes to buf.
func readAttrs(z *html.Tokenizer, more bool, buf []html.Attribute) []html.Attribute {
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		buf = append(buf, html.Attribute{Key: string(k), Val: string(v)})
	}
	return buf
}

// isVoid reports whether a is a void element, which has no end tag.
func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img,
		atom.Input, atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}
