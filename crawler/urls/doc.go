// Package urls canonicalises URLs and decides which ones a task may crawl.
//
// Canonical parses with the WHATWG URL algorithm (github.com/nlnwa/whatwg-url),
// the one browsers use, so a link means to the crawler what it means to a
// browser. The canonical form lower-cases scheme and host, converts
// internationalised host names to punycode, drops the trailing dot of a
// fully qualified host name, default ports, user info and
// the fragment, resolves dot segments, upper-cases percent escapes and decodes
// escaped unreserved characters (RFC 3986 §6.2.2). Query parameters keep their
// order: some servers care, and sorting them would merge distinct pages.
// Only http and https URLs of at most MaxLength bytes are accepted.
//
// The canonical form also drops tracking and session parameters, so that
// one page is one URL however a visitor came to it. Names are matched
// case-insensitively, after escapes are decoded; the other parameters keep
// their order and spelling, and a query left empty loses its '?'. The list:
//
//   - campaign and click identifiers: every name starting utm_, gclid,
//     dclid, gbraid, wbraid, fbclid, msclkid, yclid, igshid, mc_cid, mc_eid,
//     _ga, _gl, ref_src;
//   - session identifiers: jsessionid, phpsessid, sessionid, session_id,
//     cfid, cftoken, every name starting aspsessionid, and sid when its
//     value looks like a token (at least 16 ASCII letters and digits, with
//     both a letter and a digit: sid=42 or sid=local-news stays);
//   - the ";jsessionid=..." path parameter of servlet containers
//     (/cart.jsp;jsessionid=0A1B?item=9 becomes /cart.jsp?item=9), unless
//     removing it would leave a "." or ".." segment.
//
// Short, generic names that sites use for content (s, q, id, page, ref,
// session) are never removed, whatever their value.
//
// Filters (paper 003 §4) are small values that compose: Domain, Prefix,
// Protocol and Regex, joined with And, Or and Not. Regexes builds the task's
// URL filter from its list of regular expressions.
//
// RepeatsSegment and Dir support trap detection and per-directory statistics.
package urls
