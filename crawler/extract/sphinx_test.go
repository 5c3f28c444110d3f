package extract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/testkit/pydoctest"
)

// shutilSentence is a sentence of python3-doc's library/shutil.html with
// four inline elements; the text once read "Ifsrcanddstspecify the same
// file,SameFileErroris raised."
const shutilSentence = "If src and dst specify the same file, SameFileError is raised."

// TestSphinxPageText: python3-doc's pages, as large as real documentation
// gets, keep their words apart and lose their permalink marks on every
// path a page can take: trafilatura (shutil.html), the main landmark of a
// page too large for it (os.html), the baseline and the token stream.
func TestSphinxPageText(t *testing.T) {
	shutil := pydoctest.Page(t, "library/shutil.html")
	u := mustURL(t, "https://docs.python.org/3/library/shutil.html")
	paths := []struct {
		name string
		text func(t *testing.T) string
		want string
	}{
		{name: "trafilatura", want: shutilSentence, text: func(t *testing.T) string {
			return parse(t, string(shutil), "text/html", Options{Text: true}).Text
		}},
		{name: "landmark", want: "If name is a string and is not known, ValueError is raised.", text: func(t *testing.T) string {
			return parse(t, string(pydoctest.Page(t, "library/os.html")), "text/html", Options{Text: true}).Text
		}},
		{name: "landmark of a page trafilatura takes", want: shutilSentence, text: func(t *testing.T) string {
			doc := parseDoc(t, shutil)
			dropPermalinks(doc)
			return landmarkText(doc)
		}},
		{name: "baseline", want: shutilSentence, text: func(t *testing.T) string {
			doc := parseDoc(t, shutil)
			dropPermalinks(doc)
			return baselineText(doc)
		}},
		{name: "tokens", want: shutilSentence, text: func(t *testing.T) string {
			_, text, err := scanTokens(bytes.NewReader(shutil), u, "hivecrawl", 0, true, 0)
			if err != nil {
				t.Fatal(err)
			}
			return text
		}},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			text := p.text(t)
			if !strings.Contains(text, p.want) {
				t.Errorf("text lacks %q", p.want)
				for l := range strings.Lines(text) {
					if strings.Contains(l, strings.Fields(p.want)[len(strings.Fields(p.want))-3]) {
						t.Logf("line: %q", l)
					}
				}
			}
			if n := strings.Count(text, "¶"); n > 0 {
				t.Errorf("text holds %d permalink marks ¶", n)
			}
		})
	}
}

// TestSphinxPagesKeepWords: on a sample of python3-doc's pages no token of
// the main text glues words the page shows apart, and no permalink mark is
// left.
func TestSphinxPagesKeepWords(t *testing.T) {
	every := 8
	if raceEnabled {
		every = 32 // the race detector makes extraction ten times slower
	}
	for _, rel := range pydoctest.Pages(t, every) {
		body := pydoctest.Page(t, rel)
		p := parse(t, string(body), "text/html", Options{Text: true})
		if p.Text == "" {
			t.Errorf("%s: no text", rel)
			continue
		}
		if g := gluedTokens(parseDoc(t, body), p.Text); len(g) > 0 {
			t.Errorf("%s: %d tokens glue words, the first %q", rel, len(g), g[:min(len(g), 5)])
		}
		if strings.Contains(p.Text, "¶") {
			t.Errorf("%s: text holds a permalink mark ¶", rel)
		}
	}
}
