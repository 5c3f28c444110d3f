// Package dateparser stands in for github.com/markusmobius/go-dateparser
// (go.mod replaces it with this directory): a parser that finds no date.
//
// Hivecrawl never extracts publication dates (crawler/extract runs
// trafilatura with HtmlDateMode Disabled), but go-trafilatura links
// go-htmldate, which links go-dateparser, and go-dateparser builds its
// locale tables for some 200 languages when the program starts: in every
// Hivecrawl process that was about 78 MB allocated, 27 MB of it kept for
// the process's life, and a quarter of a second of CPU, before anything
// else ran. The idle volunteer client has a 40 MB goal.
//
// Only what go-htmldate uses is here. go-htmldate calls the parser only in
// its extensive search (Options.SkipExtensiveSearch false), which then
// finds nothing; its fast search does not use it. Should Hivecrawl ever
// extract dates, remove the replace directive and this directory.
package dateparser
