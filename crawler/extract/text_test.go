package extract

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestTrafilaturaLeavesTreeAlone backs the package's claim that links can be
// read from the tree before or after main-text extraction.
func TestTrafilaturaLeavesTreeAlone(t *testing.T) {
	doc, err := html.Parse(bytes.NewReader(readFixture(t, "article.html")))
	if err != nil {
		t.Fatal(err)
	}
	render := func() string {
		var sb strings.Builder
		if err := html.Render(&sb, doc); err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	before := render()
	res := trafilaturaResult(doc, mustURL(t, "http://example.com/news/2024/river.html"), true)
	if res == nil || visibleText(res.ContentNode) == "" {
		t.Fatalf("trafilatura found no text")
	}
	if after := render(); after != before {
		t.Errorf("trafilatura changed the tree: %d bytes before, %d after", len(before), len(after))
	}
}

func TestVisibleTextLineBreaks(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "source line breaks are spaces", body: "<p>one\ntwo\r\nthree</p><p>four</p>", want: "one two three\nfour"},
		{name: "pre keeps its lines", body: "<pre>a = 1\nb = 2</pre><p>x\ny</p>", want: "a = 1\nb = 2\nx y"},
		{name: "br and blocks break lines", body: "<div>a<br>b<span>\nc</span></div>", want: "a\nb c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if got := visibleText(doc); got != tc.want {
				t.Errorf("visibleText = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNormalizeText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "collapse", in: "  a \t b\u00a0 c  ", want: "a b c"},
		{name: "paragraph lines", in: "one\n\n\n  two  \n\t\nthree", want: "one\ntwo\nthree"},
		{name: "control characters dropped", in: "a\x00b\x07c\ufeffd", want: "abcd"},
		{name: "invalid utf-8 replaced", in: "a\xffb", want: "a\ufffdb"},
		{name: "empty", in: " \n \n", want: ""},
		{name: "soft hyphens dropped", in: "Wein\u00adwirt\u00adschaft", want: "Weinwirtschaft"},
		{name: "normal form C", in: "Gru\u0308n und Bla\u0300u", want: "Grün und Blàu"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := normalizeText(tc.in); got != tc.want {
				t.Errorf("normalizeText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// Words reach the main text whole and in one form, whichever way the page
// writes them.
func TestMainTextWords(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "soft hyphen entities", body: `<h1>Wein</h1><p>Die S&#252;d&shy;ti&shy;ro&shy;ler Wein&shy;wirt&shy;schaft</p>`, want: "Die Südtiroler Weinwirtschaft"},
		{name: "soft hyphen characters", body: "<p>Die S\u00fcd\u00adti\u00adro\u00adler Wein\u00adwirt\u00adschaft</p>", want: "Die Südtiroler Weinwirtschaft"},
		{name: "combining marks", body: "<p>Die Su\u0308dtiroler Weinwirtschaft</p>", want: "Die Südtiroler Weinwirtschaft"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, `<html><head><title>Wein</title></head><body>`+tc.body+`</body></html>`, "text/html; charset=utf-8", Options{Text: true})
			if !strings.Contains(p.Text, tc.want) {
				t.Errorf("text %q lacks %q", p.Text, tc.want)
			}
		})
	}
}

func TestCompactSpace(t *testing.T) {
	doc, err := html.Parse(strings.NewReader("<div>\n    <p>one  two\tthree</p>\n    <pre>a\n  b</pre><script>var  x;</script><textarea>c\n  d</textarea>single space</div>"))
	if err != nil {
		t.Fatal(err)
	}
	got := compactSpace(doc)
	var sb strings.Builder
	if err := html.Render(&sb, doc); err != nil {
		t.Fatal(err)
	}
	want := "<html><head></head><body><div> <p>one two three</p> <pre>a\n  b</pre><script>var  x;</script><textarea>c\n  d</textarea>single space</div></body></html>"
	if sb.String() != want {
		t.Errorf("tree after compactSpace:\n%s\nwant\n%s", sb.String(), want)
	}
	if n := len(" one two three " + "a\n  b" + "c\n  d" + "single space"); got != n {
		t.Errorf("compactSpace = %d bytes, want %d", got, n)
	}
}

// A page over the trafilatura guard only because of its indentation goes
// to trafilatura after all: its menu, which the page's text would keep,
// stays out.
func TestIndentedPage(t *testing.T) {
	indent := "\n" + strings.Repeat(" ", 400)
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Ferries</title></head><body><div class="menu"><ul>`)
	for i := range 1000 {
		fmt.Fprintf(&sb, `%s<li><a href="/m/%d">Timetable archive page %d</a></li>`, indent, i, i)
	}
	sb.WriteString(`</ul></div><div class="article"><h1>Winter timetable</h1>`)
	for i := range 8 {
		fmt.Fprintf(&sb, "%s<p>%s</p>", indent, prose(3, fmt.Sprint("ferry", i)))
	}
	sb.WriteString(`</div></body></html>`)
	body := sb.String()
	u := mustURL(t, pageAddr)
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if sc := scan(doc, u, DefaultUserAgent, 0); trafilaturaFits(sc.elements, sc.textBytes) {
		t.Fatalf("page fits the guard (%d elements, %d bytes of text): the test needs a larger one", sc.elements, sc.textBytes)
	}
	p := parse(t, body, "text/html", Options{Text: true})
	if !strings.Contains(p.Text, "ferry7 committee met on day 2") {
		t.Errorf("article text missing: %.300q", p.Text)
	}
	if strings.Contains(p.Text, "Timetable archive page") {
		t.Errorf("menu in the main text: %.300q", p.Text)
	}
}
