// Package sitemap reads sitemaps (sitemaps.org protocol 0.9): XML
// <urlset> documents listing pages, <sitemapindex> documents listing other
// sitemaps, and plain-text sitemaps of one URL a line.
//
// Parse reads from an io.Reader the caller has already bounded: it makes no
// request and decompresses nothing, so the crawler owns every request
// (politeness, address checks, byte caps) and every decompression (with its
// own cap). XML is read token by token with encoding/xml's RawToken, which
// keeps no element stack, so neither a deep nesting nor a long document
// costs more than the entries kept: at most Options.MaxEntries (the
// protocol's 50,000 by default), each <loc> at most MaxLocBytes. A
// document cut short (a byte cap, a broken body) yields the entries read
// before the break together with the error.
//
// The parser is lenient where sites are careless: elements are matched by
// local name whatever their namespace (extension elements such as
// <image:loc> are told apart by their prefix), a raw "&" in a URL is taken
// literally, and a declared encoding other than UTF-8 is read as if it were
// ASCII-compatible (URLs are). <lastmod> is read as a W3C Datetime; see
// Entry.LastMod for how a value without a time or a time zone is taken.
//
// Caveats: RSS and Atom feeds, which some search engines accept as
// sitemaps, are not read (ErrNotSitemap). Locations are returned as
// written; resolving, canonicalising and deciding which ones may be crawled
// is the caller's job.
package sitemap
