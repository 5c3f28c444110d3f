// Package indexnow is the parsing and checking core of the manager's
// IndexNow endpoint (https://www.indexnow.org/documentation): a web site
// tells the crawler which of its URLs changed, proving with a key file
// that it speaks for its host.
//
// It parses the two forms of a submission (GET /indexnow?url=…&key=… and
// POST /indexnow with a JSON body), checks the key's syntax, the URLs
// (canonical form as the crawler has it, crawler/urls), that they share
// one host and lie inside the key's scope (the directory of the key file),
// and matches a fetched key file against the key. Cache remembers verified
// keys and Limiter bounds how often one host may submit; both take the
// time from their caller.
//
// The package does no I/O: the manager fetches the key file (through the
// crawler's address guard) and records the URLs. Errors wrap ErrInvalid
// (answered 400), ErrOffScope (422) or ErrKey (403).
//
// Caveat: the scope ignores the scheme. A key file at
// http://example.com/key.txt lets the site submit https://example.com/
// URLs and the reverse: both name the same channel, and whoever controls
// the host's content controls both.
package indexnow
