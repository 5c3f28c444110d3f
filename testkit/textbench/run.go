package textbench

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/hivecrawl/hivecrawl/crawler/extract"
	"github.com/hivecrawl/hivecrawl/internal/cputime"
)

// Runner is one extractor under test.
type Runner struct {
	Name string
	// Text returns the main text of c's page; "" when nothing was found.
	Text func(c Case) string
}

// Hivecrawl is the crawler's extractor: crawler/extract.Parse with
// Options.Text on the page's bytes, as fetched with a text/html
// Content-Type without charset.
func Hivecrawl() Runner {
	return Runner{Name: "hivecrawl", Text: func(c Case) string {
		p, err := extract.Parse(c.HTML, "text/html", pageURL(c), extract.Options{Text: true})
		if err != nil {
			return ""
		}
		return p.Text
	}}
}

// Trafilatura is go-trafilatura as its comparison script runs it
// (trafilatura.Extract, which parses as the script does; Balanced,
// comments excluded, tables kept), with or without its fallback
// extractors (go-readability and go-domdistiller).
func Trafilatura(fallback bool) Runner {
	name := "trafilatura"
	if fallback {
		name += "+fallback"
	}
	return Runner{Name: name, Text: func(c Case) string {
		res, err := trafilatura.Extract(bytes.NewReader(c.HTML), trafilatura.Options{
			EnableFallback:  fallback,
			ExcludeComments: true,
			Focus:           trafilatura.Balanced,
			OriginalURL:     pageURL(c),
		})
		if err != nil || res == nil {
			return ""
		}
		return res.ContentText
	}}
}

func pageURL(c Case) *url.URL {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return nil
	}
	return u
}

// Result is one runner's score on a set of cases.
type Result struct {
	Runner string
	Score  Score
	Pages  int
	// Empty lists the cases (by name) whose page has visible text
	// (HasText) for which the extractor returned nothing.
	Empty []string
	// CPU is the process's user+system time over the run; Wall its
	// elapsed time.
	CPU, Wall time.Duration
}

// Run scores r on every case with workers goroutines (at least 1).
// Results do not depend on workers; CPU and Wall do.
func Run(r Runner, cases []Case, workers int) Result {
	workers = max(workers, 1)
	scores := make([]Score, len(cases))
	empty := make([]bool, len(cases))
	next := make(chan int)
	cpu0, start := cputime.Process(), time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				text := safeText(r, cases[i])
				scores[i] = Evaluate(cases[i], text)
				empty[i] = text == "" && HasText(cases[i].HTML)
			}
		})
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	res := Result{Runner: r.Name, Pages: len(cases), Wall: time.Since(start), CPU: cputime.Process() - cpu0}
	for i, s := range scores {
		res.Score = res.Score.Add(s)
		if empty[i] {
			res.Empty = append(res.Empty, cases[i].Name)
		}
	}
	return res
}

// HasText reports whether page has text a browser would show: text
// outside <head>, scripts, styles, <noscript> and <template>.
func HasText(page []byte) bool {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return false
	}
	found := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !found; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				found = strings.TrimSpace(c.Data) != ""
			case c.Type == html.ElementNode && invisible[c.DataAtom]:
			default:
				walk(c)
			}
		}
	}
	walk(doc)
	return found
}

var invisible = map[atom.Atom]bool{atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true}

// safeText runs r on c; an extractor's panic counts as an empty text.
func safeText(r Runner, c Case) (text string) {
	defer func() {
		if recover() != nil {
			text = ""
		}
	}()
	return r.Text(c)
}

// String is one line of a report.
func (r Result) String() string {
	return fmt.Sprintf("%-22s %5d pages  P %.3f  R %.3f  F1 %.4f  acc %.3f  empty %3d  %6.2f ms CPU/page",
		r.Runner, r.Pages, r.Score.Precision(), r.Score.Recall(), r.Score.F1(), r.Score.Accuracy(),
		len(r.Empty), float64(r.CPU.Microseconds())/1000/float64(max(r.Pages, 1)))
}
