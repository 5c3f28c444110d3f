package extract

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
)

// scanned is what one walk of the tree finds.
type scanned struct {
	title     string
	links     []Link
	canonical string
	noIndex   bool
	noFollow  bool
	elements  int // element nodes in the tree, for the trafilatura guard
	textBytes int // bytes of text outside <script> and <style>, likewise
	// visibleBytes counts the non-space bytes of that text: what the
	// main text is measured against (weakText).
	visibleBytes int
	// chromeBytes counts the part of visibleBytes inside <nav>, <aside>
	// and <footer> (chrome).
	chromeBytes int
	charset     string // the first <meta> charset declaration, lower-case
	lang        string // the language <html lang> declares (primaryLanguage)
}

// scan walks doc once and collects title, robots meta, base and links.
// Links are resolved after the walk because <base href> may come after
// links in malformed documents; the first <base href> wins, as in browsers.
func scan(doc *html.Node, pageURL *url.URL, userAgent string, maxLinks int) scanned {
	c := newCollector(userAgent, maxLinks)
	inChrome := 0 // <nav>, <aside> and <footer> elements around the node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			if p := n.Parent; p == nil || (p.DataAtom != atom.Script && p.DataAtom != atom.Style) {
				c.s.textBytes += len(n.Data)
				nb := nonSpaceBytes(n.Data)
				c.s.visibleBytes += nb
				if inChrome > 0 {
					c.s.chromeBytes += nb
				}
			}
			return
		case html.ElementNode:
			c.s.elements++
			if n.Namespace != "" {
				// <svg> and <math> content: their <a> and <title>
				// are not the page's.
				break
			}
			switch n.DataAtom {
			case atom.Template:
				return // inert content: not rendered, links not live
			case atom.Title:
				c.title(textOf(n))
				return
			}
			c.element(n.DataAtom, n.Attr)
			if chrome[n.DataAtom] {
				inChrome++
				defer func() { inChrome-- }()
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(doc)
	return c.finish(pageURL, maxLinks)
}

// nonSpaceBytes counts the bytes of s that are not ASCII whitespace.
func nonSpaceBytes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\f' {
			n++
		}
	}
	return n
}

// baseResolver resolves against the document's <base href> when it is a
// usable http(s) URL, else against the page URL; nil without either.
func baseResolver(pageURL *url.URL, baseHref string, haveBase bool) *urls.Resolver {
	if pageURL == nil {
		return nil
	}
	res, err := urls.NewResolver(pageURL)
	if err != nil {
		return nil
	}
	if haveBase {
		if b, err := res.Resolve(baseHref); err == nil {
			if br, err := urls.NewResolver(b); err == nil {
				res = br
			}
		}
	}
	return res
}

// resolveLinks canonicalises links, drops the ones Canonical refuses (other
// schemes, invalid, too long) and merges duplicates, keeping document
// order. A link is nofollow only when every occurrence is.
func resolveLinks(res *urls.Resolver, raw []rawLink, maxLinks int) []Link {
	if len(raw) == 0 {
		return nil
	}
	n := len(raw)
	if maxLinks > 0 {
		n = min(n, maxLinks)
	}
	links := make([]Link, 0, n)
	index := make(map[string]int, n)
	for _, r := range raw {
		u, err := res.Resolve(r.href)
		if err != nil {
			continue
		}
		s := u.String()
		if i, ok := index[s]; ok {
			links[i].NoFollow = links[i].NoFollow && r.noFollow
			continue
		}
		if maxLinks > 0 && len(links) >= maxLinks {
			continue
		}
		index[s] = len(links)
		links = append(links, Link{URL: s, NoFollow: r.noFollow})
	}
	return links
}

// textOf concatenates the text nodes under n.
func textOf(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return sb.String()
}
