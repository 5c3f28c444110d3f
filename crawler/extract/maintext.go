package extract

import (
	"net/url"
	"unicode/utf8"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// minMainText is trafilatura's own minimum for a main text
// (Config.MinExtractedSize); shorter results come from its baseline.
var minMainText = trafilatura.DefaultConfig().MinExtractedSize

// minMainShare is the smallest share of the page's visible text (non-space
// bytes) that trafilatura's main text may have before it counts as weak.
// On go-trafilatura's comparison set, pages under a tenth were the ones
// where its fallback extractors found more of the article; above it they
// mostly found less.
const minMainShare = 0.1

// trafilaturaOptions are the extraction settings for a crawler; see the
// package comment for why. fallback runs go-readability and
// go-domdistiller as well and lets trafilatura choose.
func trafilaturaOptions(pageURL *url.URL, fallback bool) trafilatura.Options {
	return trafilatura.Options{
		OriginalURL:     pageURL,
		Focus:           trafilatura.Balanced,
		ExcludeComments: true,
		EnableFallback:  fallback,
		HtmlDateMode:    trafilatura.Disabled,
	}
}

// mainText is the page's main text: trafilatura's, with its fallback
// extractors run only when that looks weak (weakText), and the article's
// lead before it when trafilatura left that out (withLead). When both fall
// short of trafilatura's minimum, trafilatura's stand-in (its "baseline":
// an <article>'s text, or the page's, run together) is rendered here
// instead (baselineText); so is a page trafilatura fails on, panics on or
// whose tree is too large for it. Trafilatura trims the text around
// inline elements and reorders elements nested in inline ones inside list
// items and table cells: it gets a tree without such nesting
// (flattenInline), and the text of an extractor's tree gets the page's
// word boundaries back (respace). Permalink marks ("¶") are left out on
// every path (dropPermalinks).
func mainText(doc *html.Node, pageURL *url.URL, sc scanned) string {
	dropPermalinks(doc)
	if !trafilaturaFits(sc.elements, sc.textBytes) && !trafilaturaFits(sc.elements, compactSpace(doc)) {
		return landmarkText(doc)
	}
	keepTeaserLeads(doc)
	flattenInline(doc)
	res := trafilaturaResult(doc, pageURL, false)
	if res != nil && !weakText(res, sc) {
		if t := visibleText(res.ContentNode); t != "" {
			return withLead(doc, respace(t, visibleText(doc)))
		}
	}
	for _, r := range []*trafilatura.ExtractResult{trafilaturaResult(doc, pageURL, true), res} {
		if r != nil && utf8.RuneCountInString(r.ContentText) >= minMainText {
			if t := visibleText(r.ContentNode); t != "" {
				return withLead(doc, respace(t, visibleText(doc)))
			}
		}
	}
	return baselineText(doc)
}

// baselineText is the text of the page's first <article> when it has
// more than trafilatura's baseline minimum (100 characters), else the
// page's text, either without navigation, asides and footers.
func baselineText(doc *html.Node) string {
	if a := findElement(doc, atom.Article); a != nil {
		if t := pageText(a); utf8.RuneCountInString(t) > 100 {
			return t
		}
	}
	return pageText(doc)
}

// findElement returns the first element a under n in document order.
func findElement(n *html.Node, a atom.Atom) *html.Node {
	return findFirst(n, nil, func(c *html.Node) bool { return c.DataAtom == a })
}

// findFirst returns the first element under n in document order that
// match accepts, without looking inside the elements in skip.
func findFirst(n *html.Node, skip map[atom.Atom]bool, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if skip[c.DataAtom] {
				continue
			}
			if match(c) {
				return c
			}
		}
		if f := findFirst(c, skip, match); f != nil {
			return f
		}
	}
	return nil
}

// weakText reports whether trafilatura's main text looks like it missed
// the article: shorter than its own minimum (its baseline then stands in),
// a small share of the page's visible text, longer than all the text
// outside the page's <nav>, <aside> and <footer> (so some of that came
// along), or without a paragraph.
func weakText(res *trafilatura.ExtractResult, sc scanned) bool {
	if utf8.RuneCountInString(res.ContentText) < minMainText {
		return true
	}
	main := nonSpaceBytes(res.ContentText)
	if float64(main) < minMainShare*float64(sc.visibleBytes) {
		return true
	}
	if sc.chromeBytes > 0 && main > sc.visibleBytes-sc.chromeBytes {
		// More than all the text outside <nav>, <aside> and <footer>:
		// the template came along.
		return true
	}
	return !hasParagraph(res.ContentNode)
}

// hasParagraph reports whether a <p> is under n.
func hasParagraph(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "p" || hasParagraph(c)) {
			return true
		}
	}
	return false
}

// trafilaturaResult runs trafilatura on doc (it works on a copy); nil when
// it fails, finds nothing or panics. A bug in the extractor on odd input
// must cost one page's main text, not the crawl.
func trafilaturaResult(doc *html.Node, pageURL *url.URL, fallback bool) (res *trafilatura.ExtractResult) {
	defer func() {
		if recover() != nil {
			res = nil
		}
	}()
	res, err := trafilatura.ExtractDocument(doc, trafilaturaOptions(pageURL, fallback))
	if err != nil || res == nil || res.ContentNode == nil {
		return nil
	}
	return res
}
