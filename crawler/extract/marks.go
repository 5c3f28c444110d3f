package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Permalink marks: documentation generators put a link to each heading and
// definition beside it, shown on hover, with a mark for its text: "¶" in
// Sphinx (class headerlink) and MkDocs, "§" in rustdoc, "#" in Docusaurus
// and many blog themes, an emoji in a few. In the text they glue a mark to
// the heading ("Archiving operations¶"), which a search then misses; they
// are left out.

// permalinkMarks are the texts of a permalink, once zero-width characters
// and variation selectors are removed and spaces trimmed.
var permalinkMarks = map[string]bool{
	"¶": true, "§": true, "#": true, "🔗": true, "⚓": true, "∞": true, "¤": true,
}

// maxMarkBytes is the longest text of an <a> that may be a permalink mark,
// with the characters isPermalinkMark ignores around it.
const maxMarkBytes = 32

// isPermalinkMark reports whether an <a> whose href is href and whose text
// is text is a permalink: its href names a fragment and its text is one
// mark.
func isPermalinkMark(href, text string) bool {
	if !strings.Contains(href, "#") || len(text) > maxMarkBytes {
		return false
	}
	text = strings.Map(func(r rune) rune {
		switch {
		case r >= '\u200B' && r <= '\u200D', r == '\u2060', r == '\uFEFF', r >= '\uFE00' && r <= '\uFE0F':
			return -1
		}
		return r
	}, text)
	return permalinkMarks[strings.TrimSpace(text)]
}

// dropPermalinks replaces the permalink marks under n (isPermalinkMark)
// by spaces. Links are read before (scan), so a crawl still sees them.
func dropPermalinks(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			if c.DataAtom == atom.A && c.Namespace == "" && permalink(c) {
				// A space in its place: a mark between two words
				// ("2¶3") kept them apart.
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, c)
				n.RemoveChild(c)
			} else {
				dropPermalinks(c)
			}
		}
		c = next
	}
}

// permalink reports whether the <a> element a is a permalink mark.
func permalink(a *html.Node) bool {
	href, ok := attr(a.Attr, "href")
	if !ok || !strings.Contains(href, "#") {
		return false
	}
	var sb strings.Builder
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				sb.WriteString(c.Data)
				if sb.Len() > maxMarkBytes {
					return false
				}
			case html.ElementNode:
				if !walk(c) {
					return false
				}
			}
		}
		return true
	}
	return walk(a) && isPermalinkMark(href, sb.String())
}
