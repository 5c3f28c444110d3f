// Package export writes crawl results in formats other tools read: JSON
// lines (one object per page, then a summary) and WARC 1.1 with one
// WET-style `conversion` record of extracted text per page.
//
// Both writers take task.Page records as the crawler produces them, so
// either can serve as the crawler's Sink. Page text arrives compressed
// (task.Page.Compression); Text decompresses it with a size cap, because
// pages also come from other peers and must be treated as outside input.
//
// Caveats: a conversion record would normally name the response record it
// was derived from (WARC-Refers-To); Hivecrawl keeps no raw responses, so
// the records carry only WARC-Target-URI and the fetch date. Unchanged pages
// (no text) are left out of WARC and marked in JSON lines.
package export
