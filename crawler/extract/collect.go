package extract

import (
	"mime"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// collector gathers what the tree walk (scan) and the token fallback
// (scanTokens) both find in HTML elements: base, robots meta, title
// fallbacks, links and the canonical link.
type collector struct {
	userAgent string // lower-case product token for <meta name=...>
	// maxRaw bounds the distinct links kept as written (0 = no bound).
	maxRaw int

	s         scanned
	raw       []rawLink
	rawIndex  map[string]int // href → index in raw
	baseHref  string
	haveBase  bool
	ogTitle   string
	canonical string
}

// rawLink is a link as written, resolved once the base is known.
type rawLink struct {
	href     string
	noFollow bool
}

// rawPerLink is how many distinct links as written are kept for each link
// returned: some resolve to the same URL, some to none.
const rawPerLink = 4

// newCollector returns a collector for pages whose first maxLinks links
// are wanted (0 = all).
func newCollector(userAgent string, maxLinks int) *collector {
	return &collector{userAgent: strings.ToLower(userAgent), maxRaw: maxLinks * rawPerLink, rawIndex: make(map[string]int)}
}

// link keeps a link as written. A repeated href is kept once (nofollow only
// if every occurrence says so), and once maxRaw distinct ones are kept new
// ones are dropped: a page of a million links costs no more than its first
// few thousand.
func (c *collector) link(href string, noFollow bool) {
	if i, ok := c.rawIndex[href]; ok {
		c.raw[i].noFollow = c.raw[i].noFollow && noFollow
		return
	}
	if c.maxRaw > 0 && len(c.raw) >= c.maxRaw {
		return
	}
	c.rawIndex[href] = len(c.raw)
	c.raw = append(c.raw, rawLink{href: href, noFollow: noFollow})
}

// element takes in one HTML element (not one inside <template>, <svg> or
// <math>) with its attributes.
func (c *collector) element(a atom.Atom, attrs []html.Attribute) {
	switch a {
	case atom.Html:
		if lang, ok := attr(attrs, "lang"); ok && c.s.lang == "" {
			c.s.lang = primaryLanguage(lang)
		}
	case atom.Base:
		if href, ok := attr(attrs, "href"); ok && !c.haveBase {
			c.baseHref, c.haveBase = href, true
		}
	case atom.Meta:
		c.meta(attrs)
	case atom.A, atom.Area:
		if href, ok := attr(attrs, "href"); ok {
			rel, _ := attr(attrs, "rel")
			c.link(href, hasToken(rel, "nofollow"))
		}
	case atom.Frame:
		// Frameset pages keep their content in the frames.
		if src, ok := attr(attrs, "src"); ok {
			c.link(src, false)
		}
	case atom.Link:
		if rel, _ := attr(attrs, "rel"); c.canonical == "" && hasToken(rel, "canonical") {
			c.canonical, _ = attr(attrs, "href")
		}
	}
}

func (c *collector) meta(attrs []html.Attribute) {
	content, _ := attr(attrs, "content")
	if c.s.charset == "" {
		c.s.charset = metaCharset(attrs, content)
	}
	if name, ok := attr(attrs, "name"); ok {
		if name = strings.ToLower(strings.TrimSpace(name)); name == "robots" || name == c.userAgent {
			ni, nf := directives(content)
			c.s.noIndex = c.s.noIndex || ni
			c.s.noFollow = c.s.noFollow || nf
		}
	}
	if prop, _ := attr(attrs, "property"); c.ogTitle == "" && strings.EqualFold(prop, "og:title") {
		c.ogTitle = collapse(content)
	}
	if eq, _ := attr(attrs, "http-equiv"); strings.EqualFold(strings.TrimSpace(eq), "refresh") {
		// A refresh to another URL is a redirect the browser follows.
		if u, ok := refreshURL(content); ok {
			c.link(u, false)
		}
	}
}

// primaryLanguage is the ISO 639 code of a BCP 47 tag ("en" of "en-GB"),
// lower-case; "" when the tag does not start with one.
func primaryLanguage(tag string) string {
	code, _, _ := strings.Cut(strings.TrimSpace(tag), "-")
	if len(code) < 2 || len(code) > 3 {
		return ""
	}
	for _, r := range code {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return ""
		}
	}
	return strings.ToLower(code)
}

// metaCharset is the charset a <meta charset> or <meta http-equiv=
// "Content-Type"> declares, lower-case; "" for other <meta> elements.
func metaCharset(attrs []html.Attribute, content string) string {
	if cs, ok := attr(attrs, "charset"); ok {
		return strings.ToLower(strings.TrimSpace(cs))
	}
	if eq, _ := attr(attrs, "http-equiv"); !strings.EqualFold(strings.TrimSpace(eq), "content-type") {
		return ""
	}
	_, params, err := mime.ParseMediaType(content)
	if err != nil {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(params["charset"]))
}

// title records the first <title>'s text.
func (c *collector) title(text string) {
	if c.s.title == "" {
		c.s.title = collapse(text)
	}
}

// finish resolves the links and the canonical link against the document
// base and returns the result.
func (c *collector) finish(pageURL *url.URL, maxLinks int) scanned {
	if c.s.title == "" {
		c.s.title = c.ogTitle
	}
	res := baseResolver(pageURL, c.baseHref, c.haveBase)
	if res == nil {
		return c.s
	}
	c.s.links = resolveLinks(res, c.raw, maxLinks)
	if c.canonical != "" {
		if u, err := res.Resolve(c.canonical); err == nil {
			c.s.canonical = u.String()
		}
	}
	return c.s
}

// refreshURL parses the content of <meta http-equiv="refresh"> the way the
// HTML standard does ("5; url='/next'"); ok is false for a plain reload.
func refreshURL(content string) (string, bool) {
	s := strings.TrimLeft(content, " \t\n\f\r")
	s = strings.TrimLeft(s, "0123456789.")
	s = strings.TrimLeft(s, " \t\n\f\r")
	if s == "" || (s[0] != ';' && s[0] != ',') {
		return "", false
	}
	s = strings.TrimLeft(s[1:], " \t\n\f\r")
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		rest := strings.TrimLeft(s[3:], " \t\n\f\r")
		if strings.HasPrefix(rest, "=") {
			s = strings.TrimLeft(rest[1:], " \t\n\f\r")
		}
	}
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		s = s[1:]
		if i := strings.IndexByte(s, q); i >= 0 {
			s = s[:i]
		}
	}
	s = strings.TrimSpace(s)
	return s, s != ""
}

func attr(attrs []html.Attribute, key string) (string, bool) {
	for _, a := range attrs {
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
