package textbench

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// LoadSphinx reads the pages of a Sphinx-built documentation tree under dir
// (Debian's python3-doc puts one in /usr/share/doc/python3-doc/html) and
// derives each page's ground truth from its structure:
//
//   - With: up to 5 runs of 5 to 10 words, each from the longest text node
//     directly inside a <p> of the document body (div role="main"), the
//     paragraphs spread evenly over the body. Text nodes are taken whole
//     words at a time, so no snippet spans an inline element.
//   - Without: up to 5 runs of at least 3 words from text nodes of the
//     sidebar, the navigation bars and the footer (classes sphinxsidebar,
//     related, footer) that do not occur in the body's text.
//
// Index, search and module-index pages (lists of links) and pages without
// both kinds of snippet are left out. every > 1 keeps one page in every
// (in path order); 0 or 1 keeps all.
func LoadSphinx(dir string, every int) ([]Case, error) {
	dir, err := filepath.EvalSymlinks(dir) // Debian's html is a link
	if err != nil {
		return nil, fmt.Errorf("list sphinx pages: %w", err)
	}
	var paths []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && strings.HasPrefix(name, "_") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".html") && !strings.HasPrefix(name, "genindex") &&
			name != "search.html" && name != "py-modindex.html" {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sphinx pages: %w", err)
	}
	slices.Sort(paths)
	var cases []Case
	for i, p := range paths {
		if every > 1 && i%every != 0 {
			continue
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read sphinx page: %w", err)
		}
		rel, _ := filepath.Rel(dir, p)
		c, ok := SphinxCase(body)
		if !ok {
			continue
		}
		c.Name = filepath.ToSlash(rel)
		c.URL = "http://docs.example.org/" + c.Name
		cases = append(cases, c)
	}
	return cases, nil
}

// SphinxCase derives the case of one Sphinx page (see LoadSphinx); false
// when the page has no document body or lacks either kind of snippet.
func SphinxCase(page []byte) (Case, bool) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return Case{}, false
	}
	var main *html.Node
	var chrome []*html.Node
	walkElements(doc, func(n *html.Node) bool {
		switch {
		case main == nil && n.DataAtom == atom.Div && attr(n, "role") == "main":
			main = n
			return false
		case hasClass(n, "sphinxsidebar"), hasClass(n, "related"), hasClass(n, "footer"):
			chrome = append(chrome, n)
			return false
		}
		return true
	})
	if main == nil {
		return Case{}, false
	}
	bodyText := collapseSpace(nodeText(main))
	var with []string
	walkElements(main, func(n *html.Node) bool {
		if n.DataAtom != atom.P {
			return true
		}
		longest := ""
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && len(c.Data) > len(longest) {
				longest = c.Data
			}
		}
		if w := strings.Fields(longest); len(w) >= 7 {
			// Whole words from inside the node: its first and last
			// word may continue into a neighbouring element.
			with = append(with, strings.Join(w[1:min(len(w)-1, 11)], " "))
		}
		return false
	})
	var without []string
	for _, ch := range chrome {
		walkText(ch, func(s string) {
			s = collapseSpace(s)
			if len(strings.Fields(s)) >= 3 && !strings.Contains(bodyText, s) && !slices.Contains(without, s) {
				without = append(without, s)
			}
		})
	}
	with, without = spread(with, 5), spread(without, 5)
	if len(with) == 0 || len(without) == 0 {
		return Case{}, false
	}
	return Case{HTML: page, With: with, Without: without}, true
}

// spread keeps at most n of s, evenly spaced.
func spread(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, s[i*len(s)/n])
	}
	return out
}

// walkElements calls f on every element under n in document order; f
// returns whether to descend into the element.
func walkElements(n *html.Node, f func(*html.Node) bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !f(c) {
			continue
		}
		walkElements(c, f)
	}
}

// walkText calls f on every text node under n outside scripts and styles.
func walkText(n *html.Node, f func(string)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			f(c.Data)
		case c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style):
		default:
			walkText(c, f)
		}
	}
}

// nodeText is the text under n, text nodes joined by spaces.
func nodeText(n *html.Node) string {
	var sb strings.Builder
	walkText(n, func(s string) {
		sb.WriteString(s)
		sb.WriteByte(' ')
	})
	return sb.String()
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return slices.Contains(strings.Fields(attr(n, "class")), class)
}
