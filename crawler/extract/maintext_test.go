package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// prose returns n distinct sentences of ordinary words.
func prose(n int, topic string) string {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "The %s committee met on day %d and agreed that the river path should stay open to walkers through the winter. ", topic, i)
	}
	return sb.String()
}

// TestMainTextNeverEmpty: a page with visible text never comes back
// without text, whichever way the main text is found.
func TestMainTextNeverEmpty(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{name: "only a footer", body: `<nav><a href="/">Home</a></nav><footer>Opening hours: Monday to Friday</footer>`, want: "Opening hours"},
		{name: "short div", body: `<div>Closed today.</div>`, want: "Closed today."},
		{name: "table only", body: `<table><tr><td>Tide at 06:12</td><td>1.8 m</td></tr></table>`, want: "Tide at 06:12"},
		{name: "long text without paragraphs", body: `<div>` + prose(12, "harbour") + `</div>`, want: "harbour committee met on day 11"},
		{name: "text in an aside only", body: `<aside>` + prose(3, "aside") + `</aside>`, want: "aside committee"},
		{name: "text in noscript and body", body: `<noscript>Enable scripts</noscript><p>Visible words</p>`, want: "Visible words"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.body, "text/html", Options{Text: true})
			if !strings.Contains(p.Text, tc.want) {
				t.Errorf("text %q lacks %q", p.Text, tc.want)
			}
		})
	}
}

// A page where trafilatura takes the whole template along, the menu in
// <nav> included (text in <div>s with <br>, no <p>): the fallback
// extractors run and the template is left out.
func TestWeakTextRunsFallback(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<html><body><header><nav><ul><li><a href="/p">Profile legal</a></li><li><a href="/u">Upgrade offers sitemap</a></li></ul></nav></header><div id="menu">`)
	for i := range 12 {
		fmt.Fprintf(&sb, `<a href="/m/%d">Subscribe newsletter login %d</a><br>`, i, i)
	}
	sb.WriteString(`</div><div id="text"><b>Harbour news</b><br><br>`)
	for i := range 5 {
		sb.WriteString(prose(3, fmt.Sprint("harbour", i)) + "<br><br>\n")
	}
	sb.WriteString(`</div><footer><p>Copyright consent cookies privacy terms imprint</p></footer></body></html>`)
	p := parse(t, sb.String(), "text/html", Options{Text: true})
	if !strings.Contains(p.Text, "harbour4 committee met on day 2") {
		t.Errorf("article text missing: %q", p.Text)
	}
	for _, w := range []string{"Subscribe newsletter login", "Profile legal", "Copyright consent"} {
		if strings.Contains(p.Text, w) {
			t.Errorf("template %q in the main text %q", w, p.Text)
		}
	}
}

func TestWeakText(t *testing.T) {
	para := func(text string) *trafilatura.ExtractResult {
		body := &html.Node{Type: html.ElementNode, Data: "body"}
		p := &html.Node{Type: html.ElementNode, Data: "p"} // as trafilatura builds it: no DataAtom
		p.AppendChild(&html.Node{Type: html.TextNode, Data: text})
		body.AppendChild(p)
		return &trafilatura.ExtractResult{ContentNode: body, ContentText: text}
	}
	long := strings.Repeat("abcdefghi ", 50) // 500 runes, 450 non-space bytes
	noPara := para(long)
	noPara.ContentNode.FirstChild.Data = "div"
	tests := []struct {
		name    string
		res     *trafilatura.ExtractResult
		visible int
		chrome  int
		want    bool
	}{
		{name: "half the page", res: para(long), visible: 900, want: false},
		{name: "under the minimum", res: para(long[:200]), visible: 300, want: true},
		{name: "a small share", res: para(long), visible: 4600, want: true},
		{name: "nearly all the page, no template", res: para(long), visible: 460, want: false},
		{name: "template within", res: para(long), visible: 460, chrome: 40, want: true},
		{name: "template within, half the page", res: para(long), visible: 900, chrome: 480, want: true},
		{name: "template outside", res: para(long), visible: 900, chrome: 450, want: false},
		{name: "no paragraph", res: noPara, visible: 900, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := weakText(tc.res, scanned{visibleBytes: tc.visible, chromeBytes: tc.chrome}); got != tc.want {
				t.Errorf("weakText = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBaselineText(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<nav>Menu one two</nav><article><h1>Short notice</h1>` +
		`<p>The ferry does not run today because of the storm over the bay.</p><p>It runs again tomorrow morning.</p>` +
		`<aside>Related: more ferries</aside></article><footer>Contact us</footer>`))
	if err != nil {
		t.Fatal(err)
	}
	want := "Short notice\nThe ferry does not run today because of the storm over the bay.\nIt runs again tomorrow morning."
	if got := baselineText(doc); got != want {
		t.Errorf("baselineText = %q, want %q", got, want)
	}
}

// Elements trafilatura creates carry no DataAtom; they still break lines.
func TestVisibleTextCreatedElements(t *testing.T) {
	ul := &html.Node{Type: html.ElementNode, Data: "ul"}
	for _, s := range []string{"first", "second"} {
		li := &html.Node{Type: html.ElementNode, Data: "li"}
		li.AppendChild(&html.Node{Type: html.TextNode, Data: s})
		ul.AppendChild(li)
	}
	if got := visibleText(ul); got != "first\nsecond" {
		t.Errorf("visibleText = %q, want %q", got, "first\nsecond")
	}
}
