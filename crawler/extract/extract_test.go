package extract

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/japanese"
)

const pageAddr = "http://example.com/dir/page.html"

// checkText reports each string of want that text lacks and each of
// notWant that it holds, showing the start of the text.
func checkText(t *testing.T, text string, want, notWant []string) {
	t.Helper()
	shown := text
	if len(shown) > 300 {
		shown = shown[:300] + "…"
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q: %q", w, shown)
		}
	}
	for _, w := range notWant {
		if strings.Contains(text, w) {
			t.Errorf("text holds %q: %q", w, shown)
		}
	}
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func parse(t testing.TB, body, contentType string, opts Options) *Page {
	t.Helper()
	p, err := Parse([]byte(body), contentType, mustURL(t, pageAddr), opts)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestLinks(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Link
	}{
		{
			name: "relative and absolute in document order",
			body: `<a href="b.html">b</a><a href="/root">r</a><a href="https://other.org/x">o</a>`,
			want: []Link{{URL: "http://example.com/dir/b.html"}, {URL: "http://example.com/root"}, {URL: "https://other.org/x"}},
		},
		{
			name: "area links",
			body: `<map><area href="/map1" shape="rect"><area nohref></map>`,
			want: []Link{{URL: "http://example.com/map1"}},
		},
		{
			name: "base href honoured",
			body: `<head><base href="http://cdn.example.net/sub/"></head><a href="x.html">x</a><a href="/y">y</a>`,
			want: []Link{{URL: "http://cdn.example.net/sub/x.html"}, {URL: "http://cdn.example.net/y"}},
		},
		{
			name: "relative base href",
			body: `<base href="../other/"><a href="x.html">x</a>`,
			want: []Link{{URL: "http://example.com/other/x.html"}},
		},
		{
			name: "first base wins",
			body: `<base href="http://a.example/"><base href="http://b.example/"><a href="x">x</a>`,
			want: []Link{{URL: "http://a.example/x"}},
		},
		{
			name: "unusable base falls back to page",
			body: `<base href="ftp://files.example/"><a href="x">x</a>`,
			want: []Link{{URL: "http://example.com/dir/x"}},
		},
		{
			name: "nofollow marked",
			body: `<a href="/a" rel="nofollow">a</a><a href="/b" rel="Noopener NOFOLLOW">b</a><a href="/c" rel="noopener">c</a>`,
			want: []Link{{URL: "http://example.com/a", NoFollow: true}, {URL: "http://example.com/b", NoFollow: true}, {URL: "http://example.com/c"}},
		},
		{
			name: "duplicates merged, followable if any occurrence is",
			body: `<a href="/a" rel="nofollow">1</a><a href="/b">2</a><a href="/a#frag">3</a><a href="http://EXAMPLE.com:80/a">4</a>`,
			want: []Link{{URL: "http://example.com/a"}, {URL: "http://example.com/b"}},
		},
		{
			name: "other schemes and junk dropped",
			body: `<a href="mailto:x@example.com">m</a><a href="javascript:void(0)">j</a><a href="tel:123">t</a><a href="http://[bad/">b</a><a>no href</a><a href="/ok">ok</a>`,
			want: []Link{{URL: "http://example.com/ok"}},
		},
		{
			name: "fragment-only link is the page",
			body: `<a href="#top">top</a>`,
			want: []Link{{URL: "http://example.com/dir/page.html"}},
		},
		{
			name: "template content ignored",
			body: `<template><a href="/hidden">h</a></template><a href="/shown">s</a>`,
			want: []Link{{URL: "http://example.com/shown"}},
		},
		{
			name: "entities and whitespace in href",
			body: `<a href=" /q?a=1&amp;b=2 ">q</a>`,
			want: []Link{{URL: "http://example.com/q?a=1&b=2"}},
		},
		{
			name: "meta refresh and frames",
			body: `<meta http-equiv="Refresh" content="5; URL='/moved'"><meta http-equiv="refresh" content="30"><frameset><frame src="top.html"><frame src="/main.html"></frameset>`,
			want: []Link{{URL: "http://example.com/moved"}, {URL: "http://example.com/dir/top.html"}, {URL: "http://example.com/main.html"}},
		},
		{
			name: "svg anchors are not html links",
			body: `<svg><a href="/svg">s</a></svg>`,
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.body, "text/html", Options{})
			if len(p.Links) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(p.Links, tc.want) {
				t.Errorf("links = %+v, want %+v", p.Links, tc.want)
			}
		})
	}
}

func TestRefreshURL(t *testing.T) {
	tests := []struct {
		name, content, want string
		ok                  bool
	}{
		{name: "url", content: "0; url=http://example.com/next", want: "http://example.com/next", ok: true},
		{name: "upper case and spaces", content: " 5 ;  URL = /next ", want: "/next", ok: true},
		{name: "quoted", content: `3;url='/a b'`, want: "/a b", ok: true},
		{name: "double quoted unterminated", content: `3;url="/a`, want: "/a", ok: true},
		{name: "comma", content: "1.5, /x", want: "/x", ok: true},
		{name: "no url keyword", content: "0;/bare", want: "/bare", ok: true},
		{name: "reload only", content: "30", ok: false},
		{name: "empty after separator", content: "0; ", ok: false},
		{name: "junk", content: "soon", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := refreshURL(tc.content)
			if got != tc.want || ok != tc.ok {
				t.Errorf("refreshURL(%q) = %q, %v; want %q, %v", tc.content, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestCanonicalLink(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "relative", body: `<link rel="canonical" href="/story?id=1#x">`, want: "http://example.com/story?id=1"},
		{name: "first wins", body: `<link rel="Canonical" href="http://a.example/"><link rel="canonical" href="http://b.example/">`, want: "http://a.example/"},
		{name: "unusable", body: `<link rel="canonical" href="ftp://x/">`, want: ""},
		{name: "other rel", body: `<link rel="alternate" href="/alt">`, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parse(t, tc.body, "text/html", Options{}).Canonical; got != tc.want {
				t.Errorf("canonical = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMaxLinks(t *testing.T) {
	var sb strings.Builder
	for i := range 50 {
		sb.WriteString(`<a href="/p` + string(rune('A'+i%26)) + string(rune('a'+i/26)) + `">x</a>`)
	}
	p := parse(t, sb.String(), "text/html", Options{MaxLinks: 10})
	if len(p.Links) != 10 || p.Links[0].URL != "http://example.com/pAa" {
		t.Fatalf("got %d links starting %v, want the first 10", len(p.Links), p.Links)
	}
}

func TestMetaRobots(t *testing.T) {
	tests := []struct {
		name              string
		head              string
		ua                string
		noindex, nofollow bool
	}{
		{name: "none", head: ``},
		{name: "noindex", head: `<meta name="robots" content="noindex">`, noindex: true},
		{name: "nofollow", head: `<meta name="ROBOTS" content="NoFollow">`, nofollow: true},
		{name: "both listed", head: `<meta name="robots" content="noindex, nofollow">`, noindex: true, nofollow: true},
		{name: "none directive", head: `<meta name="robots" content="none">`, noindex: true, nofollow: true},
		{name: "index follow", head: `<meta name="robots" content="index, follow, max-snippet:50">`},
		{name: "default product token", head: `<meta name="hivecrawl" content="noindex">`, noindex: true},
		{name: "configured product token", head: `<meta name="mybot" content="nofollow">`, ua: "MyBot", nofollow: true},
		{name: "other crawler ignored", head: `<meta name="googlebot" content="noindex, nofollow">`},
		{name: "most restrictive wins", head: `<meta name="robots" content="index"><meta name="hivecrawl" content="noindex">`, noindex: true},
		{name: "meta in body still counts", head: `</head><body><meta name="robots" content="nofollow">`, nofollow: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, "<html><head>"+tc.head+"</head><body>x</body></html>", "text/html", Options{UserAgent: tc.ua})
			if p.NoIndex != tc.noindex || p.NoFollow != tc.nofollow {
				t.Errorf("noindex=%v nofollow=%v, want %v %v", p.NoIndex, p.NoFollow, tc.noindex, tc.nofollow)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "plain", body: `<title>Hello</title>`, want: "Hello"},
		{name: "whitespace collapsed", body: "<title>\n  Hello \t  world\n</title>", want: "Hello world"},
		{name: "entities decoded", body: `<title>Tom &amp; Jerry &lt;3</title>`, want: "Tom & Jerry <3"},
		{name: "first title wins", body: `<title>One</title><title>Two</title>`, want: "One"},
		{name: "og title fallback", body: `<meta property="og:title" content="From OG">`, want: "From OG"},
		{name: "svg title ignored", body: `<body><svg><title>icon</title></svg></body>`, want: ""},
		{name: "missing", body: `<p>no title</p>`, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parse(t, tc.body, "text/html", Options{}).Title; got != tc.want {
				t.Errorf("title = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCharset(t *testing.T) {
	sjis, err := japanese.ShiftJIS.NewEncoder().String("<html><head><meta charset=\"shift_jis\"><title>日本語のページ</title></head><body><p>こんにちは世界</p></body></html>")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		body        string
		contentType string
		title       string
		text        string
	}{
		{name: "windows-1252 from header", body: "<title>Caf\xe9 cr\xe8me \x80 5</title><p>na\xefve</p>", contentType: "text/html; charset=windows-1252", title: "Café crème € 5", text: "naïve"},
		{name: "iso-8859-1 label is windows-1252", body: "<title>\x93quoted\x94</title><p>x</p>", contentType: "text/html; charset=ISO-8859-1", title: "“quoted”", text: "x"},
		{name: "windows-1252 from meta", body: "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><title>Gr\xfc\xdfe</title><p>x</p>", contentType: "text/html", title: "Grüße", text: "x"},
		{name: "shift_jis from meta", body: sjis, contentType: "text/html", title: "日本語のページ", text: "こんにちは世界"},
		{name: "shift_jis from header", body: sjis, contentType: "text/html; charset=Shift_JIS", title: "日本語のページ", text: "こんにちは世界"},
		{name: "utf-8 bom beats header", body: "\xef\xbb\xbf<title>\xc3\xa9t\xc3\xa9</title><p>x</p>", contentType: "text/html; charset=windows-1252", title: "été", text: "x"},
		{name: "undeclared utf-8 sniffed", body: "<title>\xc3\xa9t\xc3\xa9</title><p>x</p>", contentType: "text/html", title: "été", text: "x"},
		{name: "undeclared invalid utf-8 is windows-1252", body: "<title>\xe9t\xe9</title><p>x</p>", contentType: "text/html", title: "été", text: "x"},
		{name: "utf-8 past an ascii first kilobyte", body: asciiKB + "<title>\xc3\xa9t\xc3\xa9</title><p>na\xc3\xafve</p>", contentType: "text/html", title: "été", text: "naïve"},
		{name: "valid utf-8 beats a meta guess", body: "<meta charset=\"iso-8859-1\"><title>\xc3\xa9t\xc3\xa9</title><p>x</p>", contentType: "text/html", title: "été", text: "x"},
		{name: "header beats valid utf-8", body: "<title>\xc3\xa9</title><p>x</p>", contentType: "text/html; charset=windows-1252", title: "Ã©", text: "x"},
		{name: "shift_jis from a meta past the first kilobyte", body: asciiKB + sjis, contentType: "text/html", title: "日本語のページ", text: "こんにちは世界"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.body, tc.contentType, Options{Text: true})
			if p.Title != tc.title {
				t.Errorf("title = %q, want %q", p.Title, tc.title)
			}
			if !strings.Contains(p.Text, tc.text) {
				t.Errorf("text %q does not contain %q", p.Text, tc.text)
			}
		})
	}
}

// asciiKB is more than a kilobyte of ASCII markup with no charset in it:
// what DetermineEncoding sees of a page whose <meta> comes later.
var asciiKB = "<!-- " + strings.Repeat("scripts and styles before the meta tag ", 30) + "-->\n"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestArticleMainText(t *testing.T) {
	body := readFixture(t, "article.html")
	p, err := Parse(body, "text/html; charset=utf-8", mustURL(t, "http://example.com/news/2024/river.html"), Options{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"town council voted last spring", "Ingrid Halvorsen", "spawning grounds",
		"1.2 million euros", "A river is not a garden", "iron sluice gate",
		"openness did more to win support",
	} {
		if !strings.Contains(p.Text, w) {
			t.Errorf("main text lacks article content %q", w)
		}
	}
	for _, w := range []string{
		"Subscribe today", "Privacy Policy", "Copyright 2024", "Most read",
		"Related story number", "holiday cottages", "Great news, I remember", "gtag", "font-family",
	} {
		if strings.Contains(p.Text, w) {
			t.Errorf("main text contains boilerplate %q", w)
		}
	}
	if p.Language != "en" {
		t.Errorf("language = %q, want en", p.Language)
	}
	if n := strings.Count(p.Text, "\n"); n < 10 {
		t.Errorf("paragraphs not separated: %d newlines", n)
	}
	if p.Title != "River restored after weir removal | Valley Gazette" {
		t.Errorf("title = %q", p.Title)
	}
	// Links come from the whole page, not just the article.
	if len(p.Links) < 40 {
		t.Errorf("only %d links", len(p.Links))
	}
	noText, err := Parse(body, "text/html", mustURL(t, "http://example.com/news/2024/river.html"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if noText.Text != "" {
		t.Errorf("text extracted without Options.Text")
	}
	if !reflect.DeepEqual(noText.Links, p.Links) {
		t.Errorf("links differ with and without text extraction")
	}
}

func TestVisibleTextFallback(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []string
		notWant []string
	}{
		{
			name:    "short page",
			body:    `<html><head><title>T</title><style>.x{}</style></head><body><div>Hello <b>brave</b> new world</div><script>var s = "hidden";</script><noscript>enable js</noscript></body></html>`,
			want:    []string{"Hello brave new world"},
			notWant: []string{"hidden", "enable js", ".x{}", "T\n"},
		},
		{
			name:    "list page",
			body:    `<ul><li>First item</li><li>Second item</li></ul><template><p>inert</p></template>`,
			want:    []string{"First item\nSecond item"},
			notWant: []string{"inert"},
		},
		{
			name: "empty body",
			body: ``,
			want: []string{""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.body, "text/html", Options{Text: true})
			checkText(t, p.Text, tc.want, tc.notWant)
		})
	}
}

func TestVisibleTextWhenTreeTooLarge(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("<p>marker paragraph</p>")
	for range MaxTrafilaturaElements + 10 {
		sb.WriteString("<span>x</span>")
	}
	p := parse(t, sb.String(), "text/html", Options{Text: true})
	if !strings.HasPrefix(p.Text, "marker paragraph\n") {
		t.Errorf("text starts %q, want the visible text", p.Text[:min(40, len(p.Text))])
	}
}

// TestLandmarkTextWhenTreeTooLarge: a page too large for trafilatura
// gets its main landmark's text, without the template around it, as a
// documentation generator's pages mark it (<div role="main">, sidebars
// and navigation bars with role="navigation").
func TestLandmarkTextWhenTreeTooLarge(t *testing.T) {
	long := strings.Repeat("<li><span>entry</span></li>", MaxTrafilaturaElements/2)
	article := "<p>The reference text of this page, long enough to be the main text that a reader came for.</p>"
	tests := []struct {
		name, page string
		want       []string
		unwanted   []string
	}{
		{
			name: "role main",
			page: `<div class="related" role="navigation"><a href="/">index</a> next previous</div>
				<div class="body" role="main">` + article + `<ul>` + long + `</ul></div>
				<div class="sphinxsidebar" role="navigation">Table of contents sidebar</div>
				<div class="footer" role="contentinfo">Copyright notice</div>`,
			want:     []string{"The reference text of this page", "entry"},
			unwanted: []string{"index", "sidebar", "Copyright"},
		},
		{
			name:     "main element",
			page:     `<header>Site banner</header><main>` + article + `<ul>` + long + `</ul></main><div role="complementary">Related links</div>`,
			want:     []string{"The reference text of this page"},
			unwanted: []string{"Site banner", "Related links"},
		},
		{
			name:     "no landmark",
			page:     `<div role="navigation">Menu</div><div>` + article + `<ul>` + long + `</ul></div><footer>Footer text</footer>`,
			want:     []string{"The reference text of this page"},
			unwanted: []string{"Menu", "Footer text"},
		},
		{
			name: "empty main landmark",
			page: `<main role="main"></main><div>` + article + `<ul>` + long + `</ul></div>`,
			want: []string{"The reference text of this page"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.page, "text/html", Options{Text: true})
			checkText(t, p.Text, tc.want, tc.unwanted)
		})
	}
}

func TestTrafilaturaFits(t *testing.T) {
	tests := []struct {
		name            string
		elements, bytes int
		want            bool
	}{
		{name: "article", elements: 300, bytes: 10000, want: true},
		{name: "long article", elements: 3000, bytes: 100000, want: true},
		{name: "too many elements", elements: MaxTrafilaturaElements + 1, bytes: 10, want: false},
		{name: "too much text", elements: 10, bytes: MaxTrafilaturaText + 1, want: false},
		{name: "product too large", elements: 5000, bytes: 200000, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := trafilaturaFits(tc.elements, tc.bytes); got != tc.want {
				t.Errorf("trafilaturaFits(%d, %d) = %v, want %v", tc.elements, tc.bytes, got, tc.want)
			}
		})
	}
}

func TestScanCountsForGuard(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<p>hello</p><script>var x = "not counted";</script><style>p{}</style>`))
	if err != nil {
		t.Fatal(err)
	}
	s := scan(doc, mustURL(t, pageAddr), DefaultUserAgent, 0)
	if s.textBytes != len("hello") {
		t.Errorf("textBytes = %d, want %d", s.textBytes, len("hello"))
	}
	if s.elements != 6 { // html, head, body, p, script, style
		t.Errorf("elements = %d, want 6", s.elements)
	}
}

func TestPlainText(t *testing.T) {
	tests := []struct {
		name, body, contentType, want string
	}{
		{name: "utf-8", body: "Line one\n\n  Line   two <a href=\"/x\">\n", contentType: "text/plain; charset=utf-8", want: "Line one\nLine two <a href=\"/x\">"},
		{name: "latin-1", body: "caf\xe9", contentType: "text/plain; charset=iso-8859-1", want: "café"},
		{name: "invalid utf-8 repaired", body: "ok \xff\xfe end", contentType: "text/plain; charset=utf-8", want: "ok \uFFFD\uFFFD end"},
		{name: "sniffed", body: "just words", contentType: "", want: "just words"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.body, tc.contentType, Options{Text: true})
			if p.Text != tc.want {
				t.Errorf("text = %q, want %q", p.Text, tc.want)
			}
			if len(p.Links) != 0 || p.Title != "" {
				t.Errorf("plain text gave links %v title %q", p.Links, p.Title)
			}
		})
	}
}

func TestContentTypes(t *testing.T) {
	tests := []struct {
		name, contentType, body string
		err                     bool
	}{
		{name: "html", contentType: "text/html"},
		{name: "xhtml", contentType: "application/xhtml+xml"},
		{name: "markdown as text", contentType: "text/markdown"},
		{name: "sniffed html", contentType: "", body: "<!DOCTYPE html><p>x</p>"},
		{name: "garbage header sniffed", contentType: ";;;", body: "<html><p>x</p>"},
		{name: "image", contentType: "image/png", err: true},
		{name: "javascript", contentType: "text/javascript", err: true},
		{name: "css", contentType: "text/css", err: true},
		{name: "sniffed binary", contentType: "", body: "\x89PNG\r\n\x1a\n\x00\x00", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.body), tc.contentType, mustURL(t, pageAddr), Options{Text: true})
			if tc.err != errors.Is(err, ErrContentType) {
				t.Errorf("err = %v, want ErrContentType: %v", err, tc.err)
			}
			if !tc.err && err != nil {
				t.Errorf("unexpected error %v", err)
			}
		})
	}
}

func TestNilPageURL(t *testing.T) {
	p, err := Parse([]byte(`<title>x</title><a href="/a">a</a><a href="http://abs.example/">b</a>`), "text/html", nil, Options{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Links) != 0 {
		t.Errorf("links %v without a page URL", p.Links)
	}
}

func TestMalformedHTML(t *testing.T) {
	bodies := map[string]string{
		"unclosed":       `<html><body><div><p>text<a href="/a">link<table><tr><td>cell`,
		"deep nesting":   strings.Repeat("<div>", 600) + "deep" + strings.Repeat("</div>", 600),
		"binary noise":   "\x00\x01<\xff>\xfe<a href='\x00'>",
		"stray end tags": `</p></div></html><p>after</p>`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			p, err := Parse([]byte(body), "text/html", mustURL(t, pageAddr), Options{Text: true})
			if err != nil {
				return // an error is fine; a panic or hang is not
			}
			if !utf8.ValidString(p.Text) {
				t.Errorf("invalid UTF-8 text")
			}
		})
	}
}

// A page over MaxTreeTokens is streamed, and the stream finds what the tree
// walk would: title, robots meta, links (each once, the first MaxLinks)
// and visible text.
func TestStreamedWhenOverTreeTokens(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Big page</title><meta name="robots" content="noindex"></head><body><p>marker paragraph</p>`)
	for i := range MaxTreeTokens {
		fmt.Fprintf(&sb, `<a href="/l/%d">x</a>`, i%50)
	}
	body := []byte(sb.String())
	if treeFits(body, strings.NewReader(sb.String())) {
		t.Fatal("treeFits took a page over MaxTreeTokens")
	}
	p := parse(t, sb.String(), "text/html", Options{Text: true, MaxLinks: 20})
	if p.Title != "Big page" || !p.NoIndex || len(p.Links) != 20 || p.Links[0].URL != "http://example.com/l/0" ||
		!strings.HasPrefix(p.Text, "marker paragraph") {
		t.Errorf("streamed page: title %q, noindex %v, %d links (first %v), text %.30q", p.Title, p.NoIndex, len(p.Links), p.Links[:min(1, len(p.Links))], p.Text)
	}
	small := `<p>` + strings.Repeat(`<b>x</b>`, 100) + `</p>`
	if !treeFits([]byte(small), strings.NewReader(small)) {
		t.Error("a small page does not fit a tree")
	}
}
