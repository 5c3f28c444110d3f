package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "search", summary: "search the text solo mode crawled: search WORDS...",
		args: "[flags] WORDS...", help: searchHelp, flags: func() *flag.FlagSet { return searchFlags(new(searchOptions)) },
		run: stdio(searchMain)})
}

const searchHelp = `Finds the pages solo mode crawled and stored whose text or title has the
words, best first, with a passage around them. The words are a query:
"a phrase" in quotes, +word must be there, -word must not, title:word
looks in titles alone. The client must be running in solo mode.`

type searchOptions struct {
	controlOptions
	n int
}

func searchFlags(o *searchOptions) *flag.FlagSet {
	fs := controlFlagSet("search", &o.controlOptions)
	fs.IntVar(&o.n, "n", 10, "show at most `N` pages (1 to 100)")
	fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	return fs
}

func searchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o searchOptions
	fs := searchFlags(&o)
	dirs, code, done := parseControl(fs, &o.controlOptions, reorder(args), stdout, stderr)
	if done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: hivecrawl search [flags] WORDS... (see 'hivecrawl search -h')")
		return 2
	}
	if o.n < 1 || o.n > 100 {
		fmt.Fprintln(stderr, "hivecrawl search: -n must be from 1 to 100")
		return 2
	}
	c, err := localapi.Dial(dirs.APIFile())
	if err != nil {
		return fail(stderr, "search", err)
	}
	res, err := c.SoloSearch(ctx, strings.Join(fs.Args(), " "), o.n)
	if err != nil {
		return fail(stderr, "search", err)
	}
	if o.asJSON {
		return printJSON(stdout, stderr, "search", res)
	}
	if res.Total == 0 {
		fmt.Fprintln(stdout, "No page crawled so far has those words.")
		return 0
	}
	for _, h := range res.Hits {
		title := h.Title
		if title == "" {
			title = h.URL
		}
		fmt.Fprintf(stdout, "%s\n  %s\n  %s\n\n", title, h.URL, snippetText(h.Snippet))
	}
	fmt.Fprintf(stdout, "%d of %d pages shown.\n", len(res.Hits), res.Total)
	return 0
}

// snippetText is a snippet on one line, the matched words in [brackets].
func snippetText(segs []localapi.SnippetSegment) string {
	var b strings.Builder
	for _, s := range segs {
		t := strings.Join(strings.Fields(s.Text), " ")
		if strings.HasPrefix(s.Text, " ") || strings.HasPrefix(s.Text, "\n") {
			t = " " + t
		}
		if strings.HasSuffix(s.Text, " ") || strings.HasSuffix(s.Text, "\n") {
			t += " "
		}
		if s.Match {
			t = "[" + t + "]"
		}
		b.WriteString(t)
	}
	return strings.TrimSpace(b.String())
}
