package extract

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The lead: go-trafilatura takes the article's body (often the element a
// page marks as such, itemprop="articleBody", class="entry-content") and
// leaves out what stands between the headline and that body: the lead
// paragraph or standfirst, the subtitle. withLead takes it back.
const (
	// maxLeadLines is the most lines of text that may stand between the
	// page's <h1> and the first line of the main text for them to be
	// its lead; further apart, the <h1> is not the article's headline
	// (a site name, a section title).
	maxLeadLines = 6
	// minLeadRunes is the shortest line taken as a lead: a sentence, not
	// a date, a byline, a category or "Share".
	minLeadRunes = 80
)

// leadSkip are the elements whose text is not a lead: the template's, and
// captions and credits of images.
var leadSkip = map[atom.Atom]bool{
	atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Figure: true, atom.Figcaption: true,
}

// withLead returns main with the article's lead before it: the lines of at
// least minLeadRunes characters that stand between the page's first <h1>
// and main's first line, when at most maxLeadLines lines do, and that
// main does not already hold.
func withLead(doc *html.Node, main string) string {
	h1 := findElement(doc, atom.H1)
	if h1 == nil {
		return main
	}
	first, _, _ := strings.Cut(main, "\n")
	lines := linesAfter(doc, h1, maxLeadLines+1)
	end := -1
	for i, l := range lines {
		if l == first {
			end = i
			break
		}
	}
	var lead []string
	for _, l := range lines[:max(end, 0)] {
		if utf8.RuneCountInString(l) >= minLeadRunes && !strings.Contains(main, l) {
			lead = append(lead, l)
		}
	}
	if len(lead) == 0 {
		return main
	}
	return strings.Join(lead, "\n") + "\n" + main
}

// linesAfter renders the text that follows start (not start's own) in
// document order, as visibleText does but leaving out leadSkip, and
// returns its first n lines.
func linesAfter(doc, start *html.Node, n int) []string {
	var (
		lines   []string
		line    strings.Builder
		started bool
	)
	endLine := func() {
		if l := normalizeText(collapse(line.String())); l != "" {
			lines = append(lines, l)
		}
		line.Reset()
	}
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		if len(lines) >= n {
			return
		}
		switch c.Type {
		case html.TextNode:
			if started {
				line.WriteString(c.Data)
			}
			return
		case html.ElementNode:
			if c == start {
				started = true
				return
			}
			a := elementAtom(c)
			if skipped[a] || leadSkip[a] {
				return
			}
			if blocks[a] && started {
				endLine()
				defer endLine()
			}
		case html.CommentNode, html.DoctypeNode:
			return
		}
		for ch := c.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(doc)
	endLine()
	return lines[:min(len(lines), n)]
}

// keepTeaserLeads renames "teaser" to "lead" in the class and id of the
// elements under n that hold no link. go-trafilatura (in its Balanced
// focus) drops every element whose class or id contains "teaser", meant
// for the teasers of other articles, which link to them; a "teaser"
// without a link is the article's own lead ("teaser-text" in TYPO3's
// news pages).
func keepTeaserLeads(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		for i, a := range c.Attr {
			if a.Namespace != "" || (a.Key != "class" && a.Key != "id") {
				continue
			}
			if indexFold(a.Val, "teaser") >= 0 && !hasLink(c) {
				c.Attr[i].Val = replaceFold(a.Val, "teaser", "lead")
			}
		}
		keepTeaserLeads(c)
	}
}

// hasLink reports whether an <a> is under n.
func hasLink(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.A || hasLink(c)) {
			return true
		}
	}
	return false
}

// indexFold is strings.Index ignoring ASCII case; sub is lower-case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// replaceFold replaces every old (lower-case) in s, ignoring ASCII case,
// with new; the rest of s keeps its case.
func replaceFold(s, old, new string) string {
	var sb strings.Builder
	for {
		i := indexFold(s, old)
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:i])
		sb.WriteString(new)
		s = s[i+len(old):]
	}
}
