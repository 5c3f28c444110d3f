package extract

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestNestedInlineKeepsOrder: go-trafilatura copies list items, definition
// lists and table cells descendant by descendant, which put the tail of an
// inline element before the text of one nested in it.
func TestNestedInlineKeepsOrder(t *testing.T) {
	item := `<li>Use <code>shutil.<b>copy</b>()</code> for files, <em>not <a href="/os">os.<span>system</span>()</a> with cp</em>, always.</li>`
	body := `<html><head><title>t</title></head><body><main><h1>Copying</h1><p>` + strings.Repeat("Words of an introduction to copying files. ", 8) +
		`</p><ul>` + strings.Repeat(item, 6) + `</ul><table><tr><td>A cell with <em>a <b>bold</b> word</em> inside.</td></tr></table></main></body></html>`
	p := parse(t, body, "text/html", Options{Text: true})
	for _, want := range []string{
		"Use shutil.copy() for files, not os.system() with cp, always.",
		"A cell with a bold word inside.",
	} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, p.Text)
		}
	}
}

func TestFlattenInline(t *testing.T) {
	body := `<p>a <em>b <b>c</b> d</em> e <a href="/x">f <code><span>g</span></code> h<br>i</a> <svg><a><text>j</text></a></svg> <button><b>k</b></button> <span>m <span><math><mi>N</mi></math></span><img src="n.png"></span></p><div><span><p>l</p></span></div><ul><li>o <em>p <p>q</p> r</em> s</li></ul>`
	doc := parseDoc(t, []byte(body))
	before := visibleText(doc)
	flattenInline(doc)
	if after := visibleText(doc); after != before {
		t.Errorf("text changed: %q, was %q", after, before)
	}
	var sb strings.Builder
	html.Render(&sb, findElement(doc, atom.Body))
	want := `<body><p>a b <b>c</b> d e <a href="/x">f g h<br/>i</a> <svg><a><text>j</text></a></svg> <button><b>k</b></button> <span>m <span><math><mi>N</mi></math></span><img src="n.png"/></span></p><div><span><p>l</p></span></div><ul><li>o p <p>q</p> r s</li></ul></body>`
	if sb.String() != want {
		t.Errorf("tree\n%s\nwant\n%s", sb.String(), want)
	}
}
