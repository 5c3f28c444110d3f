package extract

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestDeepDocumentFallsBackToTokens(t *testing.T) {
	body := `<html><head><title>Deep page</title><meta name="robots" content="nofollow"><base href="/base/"></head><body>` +
		`<p>Before the pit.</p>` + strings.Repeat("<div><font>", 400) + `Deep inside <a href="x.html">x</a>` +
		`<script>var hidden = 1;</script><svg><a href="/svg">s</a></svg><template><a href="/t">t</a></template>` +
		strings.Repeat("</font></div>", 400) + `<p>After <a href="/y" rel="nofollow">y</a></p></body></html>`
	if _, err := html.Parse(strings.NewReader(body)); err == nil {
		t.Fatal("fixture is not too deep for the tree builder any more; deepen it")
	}
	p := parse(t, body, "text/html", Options{Text: true})
	if p.Title != "Deep page" || !p.NoFollow || p.NoIndex {
		t.Errorf("title %q nofollow %v noindex %v", p.Title, p.NoFollow, p.NoIndex)
	}
	want := []Link{{URL: "http://example.com/base/x.html"}, {URL: "http://example.com/y", NoFollow: true}}
	if !reflect.DeepEqual(p.Links, want) {
		t.Errorf("links = %+v, want %+v", p.Links, want)
	}
	checkText(t, p.Text, []string{"Before the pit.", "Deep inside x", "After y"}, []string{"hidden", "Deep page"})
}

// TestTokensAgreeWithTree checks the fallback against the tree walk on
// well-formed documents, where both must find the same things.
func TestTokensAgreeWithTree(t *testing.T) {
	docs := map[string]string{
		"article": string(readFixture(t, "article.html")),
		"robots":  `<html><head><meta name="hivecrawl" content="noindex"><meta property="og:title" content="OG"></head><body><a href="/a" rel="nofollow">a</a><a href="/a">a</a><area href="b"></body></html>`,
		"base":    `<html><head><base href="http://other.example/d/"></head><body><a href="x">x</a><a href="mailto:m@x">m</a></body></html>`,
		"refresh": `<html><head><meta http-equiv="refresh" content="0;url=/r"><link rel="canonical" href="/c"></head><frameset><frame src="f.html"></frameset></html>`,
		"foreign": `<html><body><svg><a href="/s">s</a><title>svg</title></svg><template><a href="/t">t</a></template><a href="/ok">ok</a></body></html>`,
	}
	for name, body := range docs {
		t.Run(name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			tree := scan(doc, mustURL(t, pageAddr), DefaultUserAgent, 0)
			toks, _, err := scanTokens(bytes.NewReader([]byte(body)), mustURL(t, pageAddr), DefaultUserAgent, 0, true, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tree.title != toks.title || tree.noIndex != toks.noIndex || tree.noFollow != toks.noFollow || tree.canonical != toks.canonical {
				t.Errorf("tree %q %v %v %q, tokens %q %v %v %q", tree.title, tree.noIndex, tree.noFollow, tree.canonical,
					toks.title, toks.noIndex, toks.noFollow, toks.canonical)
			}
			if !reflect.DeepEqual(tree.links, toks.links) {
				t.Errorf("links differ:\ntree   %+v\ntokens %+v", tree.links, toks.links)
			}
		})
	}
}

// TestTokensTextAgreesWithTree: the token stream renders a page's text as
// the tree does: source line breaks are spaces outside <pre>, inline
// elements keep their spaces, permalink marks are left out.
func TestTokensTextAgreesWithTree(t *testing.T) {
	docs := map[string]string{
		"source line breaks": "<p>Changed in version 3.4: Raise <code>SameFileError</code> instead of\n<code>Error</code>.  Since the former is\na subclass.</p><p>four</p>",
		"pre":                "<pre>a = 1\nb = 2</pre><p>x\ny</p>",
		"inline":             `<p>If <em>src</em> and <em>dst</em> specify the same file, <a href="#e"><code><span class="pre">SameFileError</span></code></a> is raised.</p>`,
		"permalink":          `<h2>Archiving operations<a class="headerlink" href="#archiving" title="Permalink to this heading">¶</a></h2><p>Text with a <a href="#x">link</a>.</p>`,
	}
	for name, body := range docs {
		t.Run(name, func(t *testing.T) {
			doc := parseDoc(t, []byte(body))
			dropPermalinks(doc)
			want := visibleText(doc)
			_, got, err := scanTokens(strings.NewReader(body), mustURL(t, pageAddr), DefaultUserAgent, 0, true, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("tokens %q, tree %q", got, want)
			}
		})
	}
}
