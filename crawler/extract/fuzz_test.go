package extract

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte(`<html><head><base href="/b/"><title>t</title><meta name="robots" content="none"></head><body><a href="x" rel="nofollow">x</a><area href="//h/y"></body></html>`), "text/html", true)
	f.Add([]byte("<meta charset=shift_jis><p>\x82\xa0</p>"), "", true)
	f.Add([]byte("caf\xe9 <a href=/x>"), "text/plain; charset=windows-1252", true)
	f.Add([]byte(`<a href="javascript:x"><a href="  HTTP://EXAMPLE.com:80/%7e?q#f">`), "text/html; charset=utf-8", false)
	f.Add([]byte(`<table><a href=/t><td><p>cell</table><svg><a href=/s></svg><template><a href=/tt></template>`), "application/xhtml+xml", true)
	f.Add([]byte("\xef\xbb\xbf<p>bom</p>\x00\xff"), "text/html; charset=latin1", true)
	f.Add([]byte(strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 30)), "text/html", true)
	f.Add([]byte(strings.Repeat("<b><i><div>", 200)+`<a href="/deep">d</a><title>t</title>`), "text/html", true)
	f.Add([]byte(`<nav><a href="/">Home</a></nav><footer>Only the footer has text</footer>`), "text/html", true)
	f.Add([]byte(`<article><p>Short article.</p></article><aside>Related: more</aside>`), "text/html", true)
	base, _ := url.Parse("http://example.com/dir/page.html")
	f.Fuzz(func(t *testing.T, body []byte, contentType string, text bool) {
		p, err := Parse(body, contentType, base, Options{Text: text})
		if err != nil {
			return
		}
		for _, s := range []string{p.Title, p.Text} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
		}
		if !text && p.Text != "" {
			t.Fatalf("text without Options.Text")
		}
		if text && p.Text == "" && contentType == "text/html" && utf8.Valid(body) && len(body) < MaxTreeTokens {
			// A page with visible text never comes back without text.
			if doc, err := html.Parse(bytes.NewReader(body)); err == nil {
				if v := visibleText(doc); v != "" {
					t.Fatalf("no text from a page whose visible text is %q", v)
				}
			}
		}
		seen := make(map[string]bool, len(p.Links))
		for _, l := range p.Links {
			if len(l.URL) > urls.MaxLength {
				t.Fatalf("link of %d bytes", len(l.URL))
			}
			u, err := url.Parse(l.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
				t.Fatalf("link %q is not an absolute http(s) URL without fragment (%v)", l.URL, err)
			}
			if seen[l.URL] {
				t.Fatalf("duplicate link %q", l.URL)
			}
			seen[l.URL] = true
		}
	})
}
