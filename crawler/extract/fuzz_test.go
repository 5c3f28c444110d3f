package extract

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/testkit/pydoctest"
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

// FuzzTextKeepsWords: no token of a page's main text glues together words
// the page shows apart (gluedTokens), whatever path the page takes.
func FuzzTextKeepsWords(f *testing.F) {
	para := `<p>If <em>src</em> and <em>dst</em> specify the same file, <a href="#e"><code><span class="pre">SameFileError</span></code></a> is raised; see <code>shutil.<b>copy</b>()</code> too.</p>`
	f.Add(`<html><body><main><h1>shutil<a class="headerlink" href="#s">¶</a></h1><dl><dt>copyfile(<em>src</em>, <em>dst</em>)</dt><dd>` + strings.Repeat(para, 4) + `</dd></dl></main></body></html>`)
	f.Add(`<ul><li>Use <code>shutil.<b>copy</b>()</code> for files, <em>not <a href="/os">os.<span>system</span>()</a></em>, always.</li></ul>` + strings.Repeat(para, 3))
	f.Add(`<table><tr><td>A cell with <em>a <b>bold</b> word</em> inside.</td><td>two</td></tr></table><article>` + strings.Repeat(para, 5) + `</article>`)
	f.Add(`<nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><div role="main"><p>The<br>end <i>of</i>the line</p><pre>a  b
c</pre></div><footer>Footer</footer>`)
	f.Add(string(readFixture(f, "article.html")))
	if b, err := os.ReadFile(filepath.Join(pydoctest.Dir, "library", "shutil.html")); err == nil {
		// One definition of python3-doc's shutil.html, with its markup.
		s := string(b)
		if i := strings.Index(s, `<dl class="py function">`); i >= 0 {
			f.Add(s[:strings.Index(s, "<body")] + "<body>" + s[i:min(len(s), i+12000)])
		}
	}
	base, _ := url.Parse("http://example.com/dir/page.html")
	f.Fuzz(func(t *testing.T, body string) {
		if !utf8.ValidString(body) {
			return
		}
		p, err := Parse([]byte(body), "text/html; charset=utf-8", base, Options{Text: true})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(strings.NewReader(body))
		if err != nil {
			return // streamed as tokens: too deep for a tree
		}
		if g := gluedTokens(doc, p.Text); len(g) > 0 {
			t.Fatalf("tokens %q glue words of the page; text:\n%s\nvisible:\n%s", g, p.Text, visibleText(doc))
		}
	})
}
