package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"
)

// Limits on the trees handed to trafilatura; larger pages (rare for real
// articles, common for hostile ones) get the visible text instead.
// Trafilatura copies the tree four times and walks it many times over, and
// its content scorer concatenates paragraph text in a loop, so its cost
// grows with elements × text: MaxTrafilaturaWork bounds that product (a
// 10 KB article is about 2·10⁶; the bound keeps the worst case near a
// tenth of a second). Text is measured again with its runs of whitespace
// made single spaces (compactSpace) before a page is refused: some pages
// are mostly indentation.
const (
	MaxTrafilaturaElements = 50000
	MaxTrafilaturaText     = 512 << 10
	MaxTrafilaturaWork     = 4e8
)

// trafilaturaFits reports whether a tree of this size goes to trafilatura.
func trafilaturaFits(elements, textBytes int) bool {
	return elements <= MaxTrafilaturaElements && textBytes <= MaxTrafilaturaText &&
		float64(elements)*float64(textBytes) <= MaxTrafilaturaWork
}

// compactSpace turns each run of whitespace in the text under n into one
// space, except inside <pre> and <textarea> (where it shows) and in
// <script> and <style> (not text), and returns the bytes of text outside
// <script> and <style> left, as scan counts them. A page indented with
// megabytes of spaces is not a large page, and the rendered text is the
// same.
func compactSpace(n *html.Node) int {
	total := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				c.Data = compactRuns(c.Data)
				total += len(c.Data)
			case c.Type != html.ElementNode:
			case c.DataAtom == atom.Script || c.DataAtom == atom.Style:
			case c.DataAtom == atom.Pre || c.DataAtom == atom.Textarea:
				total += len(textOf(c))
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return total
}

// compactRuns replaces each run of ASCII whitespace in s with one space.
func compactRuns(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if isSpace(s[i]) && (s[i] != ' ' || i+1 < len(s) && isSpace(s[i+1])) {
			break
		}
	}
	if i == len(s) {
		return s // nothing to change, no copy
	}
	var sb strings.Builder
	sb.Grow(len(s))
	sb.WriteString(s[:i])
	space := false
	for ; i < len(s); i++ {
		if isSpace(s[i]) {
			space = true
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteByte(s[i])
	}
	if space {
		sb.WriteByte(' ')
	}
	return sb.String()
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
}

// skipped elements hold no visible text.
var skipped = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Iframe: true, atom.Object: true, atom.Svg: true,
	atom.Math: true, atom.Select: true, atom.Textarea: true, atom.Button: true,
}

// blocks are elements that start a new line of text.
var blocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Br: true, atom.Caption: true, atom.Dd: true, atom.Details: true, atom.Div: true,
	atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true,
	atom.P: true, atom.Pre: true, atom.Section: true, atom.Summary: true,
	atom.Table: true, atom.Td: true, atom.Th: true, atom.Tr: true, atom.Ul: true,
	atom.Body: true, atom.Html: true,
}

// chrome are the elements of a page's template: left out of the text of
// a page where no main text was found (pageText).
var chrome = map[atom.Atom]bool{atom.Nav: true, atom.Aside: true, atom.Footer: true}

// chromeRoles are the ARIA landmark roles of a page's template, left out
// with chrome: many templates mark their sidebars and navigation bars with
// a role on a <div> rather than with the HTML5 element.
var chromeRoles = map[string]bool{
	"navigation": true, "complementary": true, "contentinfo": true,
	"banner": true, "search": true,
}

// landmarkText is the text of a page too large for trafilatura: the text
// of its main landmark (<main>, or the element with role="main") when
// that has more than 100 characters, else its page text; either without
// the template's landmarks. Finding the landmark is one walk of the tree,
// so a hostile page costs no more than its visible text does.
func landmarkText(doc *html.Node) string {
	if m := findMain(doc); m != nil {
		if t := pageText(m); utf8.RuneCountInString(t) > 100 {
			return t
		}
	}
	return pageText(doc)
}

// findMain returns the first <main> or role="main" element under n in
// document order that is not inside <template> or another skipped
// element.
func findMain(n *html.Node) *html.Node {
	return findFirst(n, skipped, func(c *html.Node) bool { return c.DataAtom == atom.Main || role(c) == "main" })
}

// isChromeRole reports whether n is marked as a template landmark.
func isChromeRole(n *html.Node) bool { return chromeRoles[role(n)] }

// role is n's ARIA role attribute, trimmed and in lower case.
func role(n *html.Node) string {
	r, _ := attr(n.Attr, "role")
	return strings.ToLower(strings.TrimSpace(r))
}

// visibleText renders the text under n: block elements on their own lines,
// whitespace collapsed, invisible elements skipped. A line break in the
// source is a space, as in a browser, except inside <pre>.
func visibleText(n *html.Node) string { return renderText(n, nil) }

// pageText is visibleText without the page's navigation, asides and
// footers, as elements or as landmark roles, unless they hold all of its
// text.
func pageText(n *html.Node) string {
	if t := renderText(n, chrome); t != "" {
		return t
	}
	return visibleText(n)
}

// renderText is visibleText leaving out the elements in skip as well.
func renderText(n *html.Node, skip map[atom.Atom]bool) string {
	var sb strings.Builder
	// Sized once: grown by doubling, a 10 MB text cost 30 MB more.
	sb.Grow(textSize(n, skip) + 64)
	pre := 0 // depth of <pre> elements around the node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			if pre > 0 {
				sb.WriteString(n.Data)
			} else {
				writeFlowText(&sb, n.Data)
			}
			return
		case html.ElementNode:
			a := elementAtom(n)
			if skipped[a] || skip[a] || skip != nil && isChromeRole(n) {
				return
			}
			if blocks[a] {
				sb.WriteByte('\n')
				defer sb.WriteByte('\n')
			}
			if a == atom.Pre {
				pre++
				defer func() { pre-- }()
			}
		case html.CommentNode, html.DoctypeNode:
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return normalizeText(sb.String())
}

// textSize is the bytes of text renderText finds under n, give or take
// the line breaks between blocks.
func textSize(n *html.Node, skip map[atom.Atom]bool) int {
	switch n.Type {
	case html.TextNode:
		return len(n.Data) + 1
	case html.ElementNode:
		a := elementAtom(n)
		if skipped[a] || skip[a] || skip != nil && isChromeRole(n) {
			return 0
		}
	case html.CommentNode, html.DoctypeNode:
		return 0
	}
	size := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		size += textSize(c, skip)
	}
	return size
}

// elementAtom is n's tag as an atom. Elements trafilatura creates carry
// only their name (Data), not DataAtom.
func elementAtom(n *html.Node) atom.Atom {
	if n.DataAtom != 0 || n.Data == "" {
		return n.DataAtom
	}
	return atom.Lookup([]byte(n.Data))
}

// writeFlowText writes text outside <pre>: its line breaks become spaces
// (normalizeText collapses the runs).
func writeFlowText(sb *strings.Builder, text string) {
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			sb.WriteString(text)
			return
		}
		sb.WriteString(text[:i])
		sb.WriteByte(' ')
		text = text[i+1:]
	}
}

// normalizeText makes s valid UTF-8 in Unicode normal form C, collapses
// whitespace within lines and drops empty lines, so paragraphs end up one
// per line. Normal form C writes "ä" as one code point, as most pages do
// and as a search is typed; some pages write it as "a" and a combining
// mark.
func normalizeText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for line := range strings.SplitSeq(s, "\n") {
		collapseTo(&sb, line, "\n")
	}
	return sb.String()
}

// softHyphen marks where a word may be broken across lines; a browser
// shows it only there, and in the text it would split the word for a
// search.
const softHyphen = '\u00AD'

// collapse trims s and turns each run of whitespace (including line breaks)
// into one space. Control characters other than whitespace, byte order
// marks and soft hyphens are dropped.
func collapse(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	collapseTo(&sb, s, "")
	return sb.String()
}

// collapseTo writes s collapsed as collapse does to sb, preceded by sep
// when sb already holds text and s has some: a line of a text that is
// written line by line, without a copy of each line.
func collapseTo(sb *strings.Builder, s, sep string) {
	start, space := sb.Len(), false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r), r == '\uFEFF', r == softHyphen:
			continue
		}
		switch {
		case sb.Len() == start && start > 0:
			sb.WriteString(sep)
		case space && sb.Len() > start:
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
}
