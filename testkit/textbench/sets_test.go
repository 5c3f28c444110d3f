package textbench

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestGenerated(t *testing.T) {
	a, b := Generated(7, 24), Generated(7, 24)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("Generated is not deterministic")
	}
	layouts := map[string]bool{}
	for _, c := range a {
		layouts[strings.SplitN(c.Name, "-", 2)[0]] = true
		if len(c.With) == 0 || len(c.Without) == 0 {
			t.Fatalf("%s: %d with, %d without", c.Name, len(c.With), len(c.Without))
		}
		for _, s := range append(append([]string{}, c.With...), c.Without...) {
			if !bytes.Contains(c.HTML, []byte(s)) {
				t.Errorf("%s: snippet %q is not in the page", c.Name, s)
			}
		}
		for _, w := range c.With {
			for _, wo := range c.Without {
				if strings.Contains(w, wo) || strings.Contains(wo, w) {
					t.Errorf("%s: main text %q and boilerplate %q overlap", c.Name, w, wo)
				}
			}
		}
	}
	if len(layouts) != 6 {
		t.Errorf("layouts %v, want 6", layouts)
	}
}

const sphinxPage = `<html><head><title>json</title></head><body>
<div class="related" role="navigation"><ul><li><a href="index.html">The Python Standard Library</a></li></ul></div>
<div class="document"><div class="body" role="main">
<h1>json — JSON encoder and decoder</h1>
<p>JSON is a lightweight data interchange format inspired by JavaScript object literal syntax.</p>
<p>Short <code>one</code>.</p>
<p>The <code>dumps()</code> function serialises an object to a JSON formatted string
using this conversion table, and more words here.</p>
</div></div>
<div class="sphinxsidebar"><h3>Table of Contents</h3><ul><li><a href="#">json — JSON encoder and decoder</a></li></ul>
<h3>This Page</h3><ul><li><a href="bugs.html">Report a Bug</a></li></ul></div>
<div class="footer">This page is licensed under the Python Software Foundation License.</div>
</body></html>`

func TestSphinxCase(t *testing.T) {
	c, ok := SphinxCase([]byte(sphinxPage))
	if !ok {
		t.Fatal("no case")
	}
	wantWith := []string{
		// Ten words, from the second: the first and last may run on
		// into a neighbouring element.
		"is a lightweight data interchange format inspired by JavaScript object",
		"serialises an object to a JSON formatted string using this",
	}
	// The sidebar's copy of the heading is in the body, so it is not
	// boilerplate; "This Page" is too short to count.
	wantWithout := []string{"The Python Standard Library", "Table of Contents", "Report a Bug",
		"This page is licensed under the Python Software Foundation License."}
	if !reflect.DeepEqual(c.With, wantWith) {
		t.Errorf("with = %q, want %q", c.With, wantWith)
	}
	if !reflect.DeepEqual(c.Without, wantWithout) {
		t.Errorf("without = %q, want %q", c.Without, wantWithout)
	}
	if _, ok := SphinxCase([]byte("<p>no body div</p>")); ok {
		t.Error("case from a page without a document body")
	}
}

func FuzzSphinxCase(f *testing.F) {
	f.Add([]byte(sphinxPage))
	f.Add([]byte(`<div role="main"><p>a b c d e f g h</p></div><div class="footer">x y z</div>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		c, ok := SphinxCase(page)
		if !ok {
			return
		}
		if len(c.With) == 0 || len(c.With) > 5 || len(c.Without) == 0 || len(c.Without) > 5 {
			t.Fatalf("%d with, %d without", len(c.With), len(c.Without))
		}
		for _, w := range c.Without {
			if len(strings.Fields(w)) < 3 {
				t.Fatalf("boilerplate snippet %q under 3 words", w)
			}
		}
	})
}

func TestRunCountsEmpty(t *testing.T) {
	cases := []Case{
		{Name: "a", With: []string{"x"}, Without: []string{"y"}, HTML: []byte("<p>x y</p>")},
		{Name: "b", With: []string{"x"}, HTML: []byte("<p>x</p>")},
		{Name: "c", With: []string{"x"}, HTML: []byte("<head><title>t</title></head><script>x</script>")},
	}
	r := Runner{Name: "stub", Text: func(c Case) string {
		switch c.Name {
		case "a":
			return "x y"
		case "b":
			panic("extractor bug")
		}
		return ""
	}}
	res := Run(r, cases, 2)
	want := Score{TruePositives: 1, FalsePositives: 1, FalseNegatives: 2}
	if res.Score != want {
		t.Errorf("score %+v, want %+v", res.Score, want)
	}
	if !reflect.DeepEqual(res.Empty, []string{"b"}) {
		t.Errorf("empty = %v, want [b] (c has no visible text)", res.Empty)
	}
}

// TestHivecrawlNeverEmpty: the crawler's extractor returns text for every
// generated page, and for the Sphinx sample page.
func TestHivecrawlNeverEmpty(t *testing.T) {
	cases := append(Generated(3, 60), Case{Name: "sphinx", HTML: []byte(sphinxPage), URL: "http://docs.example.org/json.html"})
	res := Run(Hivecrawl(), cases, 1)
	if len(res.Empty) > 0 {
		t.Errorf("no text from %v", res.Empty)
	}
}
