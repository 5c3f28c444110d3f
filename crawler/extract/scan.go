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
	noIndex   bool
	noFollow  bool
	elements  int // element nodes in the tree, for the trafilatura guard
	textBytes int // bytes of text outside <script> and <style>, likewise
}

// rawLink is a link as written, resolved once the base is known.
type rawLink struct {
	href     string
	noFollow bool
}

// scan walks doc once and collects title, robots meta, base and links.
// Links are resolved after the walk because <base href> may come after
// links in malformed documents; the first <base href> wins, as in browsers.
func scan(doc *html.Node, pageURL *url.URL, userAgent string, maxLinks int) scanned {
	var (
		s        scanned
		raw      []rawLink
		baseHref string
		haveBase bool
		ogTitle  string
	)
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			if p := n.Parent; p == nil || (p.DataAtom != atom.Script && p.DataAtom != atom.Style) {
				s.textBytes += len(n.Data)
			}
			return
		}
		if n.Type == html.ElementNode {
			s.elements++
			if n.Namespace == "" {
				switch n.DataAtom {
				case atom.Template:
					// Inert content: not rendered, links not live.
					return
				case atom.Title:
					if s.title == "" {
						s.title = collapse(textOf(n))
					}
					return
				case atom.Base:
					if href, ok := attr(n, "href"); ok && !haveBase {
						baseHref, haveBase = href, true
					}
				case atom.Meta:
					name, _ := attr(n, "name")
					content, _ := attr(n, "content")
					if name = strings.ToLower(strings.TrimSpace(name)); name == "robots" || name == strings.ToLower(userAgent) {
						ni, nf := directives(content)
						s.noIndex = s.noIndex || ni
						s.noFollow = s.noFollow || nf
					}
					if prop, _ := attr(n, "property"); ogTitle == "" && strings.EqualFold(prop, "og:title") {
						ogTitle = collapse(content)
					}
				case atom.A, atom.Area:
					if href, ok := attr(n, "href"); ok {
						rel, _ := attr(n, "rel")
						raw = append(raw, rawLink{href: href, noFollow: hasToken(rel, "nofollow")})
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if s.title == "" {
		s.title = ogTitle
	}
	s.links = resolveLinks(raw, pageURL, baseHref, haveBase, maxLinks)
	return s
}

// resolveLinks canonicalises links against the document base, drops the
// ones Canonical refuses (other schemes, invalid, too long) and merges
// duplicates, keeping document order. A link is nofollow only when every
// occurrence is.
func resolveLinks(raw []rawLink, pageURL *url.URL, baseHref string, haveBase bool, maxLinks int) []Link {
	if pageURL == nil || len(raw) == 0 {
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
	links := make([]Link, 0, len(raw))
	index := make(map[string]int, len(raw))
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

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// hasToken reports whether the space-separated list s contains tok,
// ignoring case (rel="Nofollow noopener").
func hasToken(s, tok string) bool {
	for f := range strings.FieldsSeq(s) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
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
