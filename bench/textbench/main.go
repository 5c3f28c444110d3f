// Command textbench scores main-text extractors side by side: Hivecrawl's
// crawler/extract and go-trafilatura with and without its fallback, on
// go-trafilatura's comparison set (read from the module cache), on
// generated pages and, when installed, on Debian's python3-doc. `make
// bench` runs it (section text).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/hivecrawl/hivecrawl/testkit/textbench"
)

func main() {
	var (
		sets    = flag.String("sets", "comparison,generated,python3-doc", "comma-separated sets to score")
		workers = flag.Int("j", runtime.GOMAXPROCS(0), "pages extracted at once")
		sphinx  = flag.String("python3-doc", "/usr/share/doc/python3-doc/html", "Sphinx HTML tree for the python3-doc set")
		only    = flag.String("only", "", "comma-separated extractors (hivecrawl,trafilatura,trafilatura+fallback); default all")
		empties = flag.Bool("empty", false, "list the pages each extractor returned empty")
	)
	flag.Parse()
	runners := []textbench.Runner{textbench.Hivecrawl(), textbench.Trafilatura(false), textbench.Trafilatura(true)}
	for _, set := range strings.Split(*sets, ",") {
		cases, err := load(set, *sphinx)
		if errors.Is(err, textbench.ErrNoComparison) || errors.Is(err, os.ErrNotExist) {
			fmt.Printf("== %s: skipped: %v\n", set, err)
			continue
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "textbench:", err)
			os.Exit(1)
		}
		fmt.Printf("== %s: %d pages, %d workers\n", set, len(cases), *workers)
		for _, r := range runners {
			if *only != "" && !strings.Contains(","+*only+",", ","+r.Name+",") {
				continue
			}
			res := textbench.Run(r, cases, *workers)
			fmt.Println("  " + res.String())
			if *empties && len(res.Empty) > 0 {
				fmt.Println("    empty:", strings.Join(res.Empty, " "))
			}
		}
	}
}

func load(set, sphinx string) ([]textbench.Case, error) {
	switch set {
	case "comparison":
		dir, err := textbench.ComparisonDir()
		if err != nil {
			return nil, err
		}
		return textbench.LoadComparison(dir)
	case "generated":
		return textbench.Generated(1, 300), nil
	case "python3-doc":
		return textbench.LoadSphinx(sphinx, 0)
	}
	return nil, fmt.Errorf("unknown set %q (have comparison, generated, python3-doc)", set)
}
