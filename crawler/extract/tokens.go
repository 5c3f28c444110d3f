package extract

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// scanTokens is the fallback for documents that golang.org/x/net/html
// refuses to build a tree for (nesting deeper than 512 open elements, as in
// pages with thousands of unclosed tags): one pass of the tokenizer finds
// the same title, robots meta, base and links, and, when text is wanted,
// the visible text. Without a tree, main-text extraction is not possible.
func scanTokens(r io.Reader, pageURL *url.URL, userAgent string, maxLinks int, text bool) (scanned, string, error) {
	var (
		s        scanned
		raw      []rawLink
		baseHref string
		haveBase bool
		ogTitle  string
		sb       strings.Builder
		hidden   int // depth inside elements whose text is not visible
		foreign  int // depth inside <svg> and <math>
		inert    int // depth inside <template>
		inTitle  bool
		title    strings.Builder
	)
	z := html.NewTokenizer(r)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return s, "", fmt.Errorf("tokenize html: %w", err)
			}
			if s.title == "" {
				s.title = ogTitle
			}
			s.links = resolveLinks(raw, pageURL, baseHref, haveBase, maxLinks)
			if !text {
				return s, "", nil
			}
			return s, normalizeText(sb.String()), nil
		case html.TextToken:
			switch {
			case inTitle:
				title.Write(z.Text())
			case hidden == 0 && foreign == 0 && inert == 0 && text:
				sb.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if tt == html.EndTagToken {
				switch {
				case a == atom.Title && inTitle:
					inTitle = false
					if s.title == "" {
						s.title = collapse(title.String())
					}
				case a == atom.Template && inert > 0:
					inert--
				case (a == atom.Svg || a == atom.Math) && foreign > 0:
					foreign--
				case skipped[a] && hidden > 0:
					hidden--
				}
				if blocks[a] {
					sb.WriteByte('\n')
				}
				continue
			}
			s.elements++
			attrs := readAttrs(z, hasAttr)
			if blocks[a] {
				sb.WriteByte('\n')
			}
			selfClosing := tt == html.SelfClosingTagToken || isVoid(a)
			switch {
			case a == atom.Template:
				if !selfClosing {
					inert++
				}
				continue
			case a == atom.Svg || a == atom.Math:
				if !selfClosing {
					foreign++
				}
				continue
			case skipped[a] && a != atom.Head:
				// <head> is not counted: its end tag is often missing,
				// which would hide the whole page.
				if !selfClosing {
					hidden++
				}
				continue
			}
			if inert > 0 || foreign > 0 {
				continue
			}
			switch a {
			case atom.Title:
				inTitle = !selfClosing
			case atom.Base:
				if href, ok := attrs["href"]; ok && !haveBase {
					baseHref, haveBase = href, true
				}
			case atom.Meta:
				name := strings.ToLower(strings.TrimSpace(attrs["name"]))
				if name == "robots" || name == strings.ToLower(userAgent) {
					ni, nf := directives(attrs["content"])
					s.noIndex = s.noIndex || ni
					s.noFollow = s.noFollow || nf
				}
				if ogTitle == "" && strings.EqualFold(attrs["property"], "og:title") {
					ogTitle = collapse(attrs["content"])
				}
			case atom.A, atom.Area:
				if href, ok := attrs["href"]; ok {
					raw = append(raw, rawLink{href: href, noFollow: hasToken(attrs["rel"], "nofollow")})
				}
			}
		}
	}
}

// readAttrs collects a tag's attributes; the first of a repeated name wins,
// as in the tree builder.
func readAttrs(z *html.Tokenizer, more bool) map[string]string {
	if !more {
		return nil
	}
	m := make(map[string]string, 4)
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, dup := m[string(k)]; !dup {
			m[string(k)] = string(v)
		}
	}
	return m
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
