// Package urls canonicalises URLs and decides which ones a task may crawl.
//
// Canonical parses with the WHATWG URL algorithm (github.com/nlnwa/whatwg-url),
// the one browsers use, so a link means to the crawler what it means to a
// browser. The canonical form lower-cases scheme and host, converts
// internationalised host names to punycode, drops default ports, user info and
// the fragment, resolves dot segments, upper-cases percent escapes and decodes
// escaped unreserved characters (RFC 3986 §6.2.2). Query parameters keep their
// order: some servers care, and sorting them would merge distinct pages.
// Only http and https URLs of at most MaxLength bytes are accepted.
//
// Filters (paper 003 §4) are small values that compose: Domain, Prefix,
// Protocol and Regex, joined with And, Or and Not. Regexes builds the task's
// URL filter from its list of regular expressions.
//
// RepeatsSegment and Dir support trap detection and per-directory statistics.
package urls
