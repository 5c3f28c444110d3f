// Package textbench measures main-text extraction: how much of a page's
// main text an extractor keeps and how much boilerplate it lets through.
//
// A Case is one page with snippets that must appear in its main text
// (With) and snippets that must not (Without). Evaluate scores an
// extractor's text against a case by the rule of go-trafilatura's
// comparison script (scripts/comparison/content.go in its module): each
// With snippet found is a true positive, each one missing a false negative;
// each Without snippet found is a false positive, each one missing a true
// negative; an empty text misses every snippet. Precision, recall and F1
// are computed over the totals of all cases, not averaged per page.
//
// Three sets of cases:
//
//   - LoadComparison reads go-trafilatura's own comparison set (983 pages)
//     from its module directory: the expected snippets from
//     scripts/comparison/data.go, parsed with go/parser (the file is Go
//     source, never compiled into Hivecrawl), and the pages from
//     test-files. Nothing of it is copied into this repository.
//   - Generated returns pages built here, with a stated ground truth: the
//     article's paragraphs, headings and list items are the main text;
//     navigation, related links, comments, share bars, cookie notices and
//     footers are not.
//   - LoadSphinx reads Sphinx-generated documentation (Debian's
//     python3-doc): the main text is the document body (div role="main"),
//     the boilerplate the sidebar, the navigation bars and the footer.
//
// Runners name the extractors compared: Hivecrawl's crawler/extract and
// go-trafilatura with and without its fallback extractors.
package textbench
