// Package urls canonicalises URLs and decides which ones a task may crawl.
//
// PLACEHOLDER API: signatures are fixed; the implementation is being written.
package urls

import (
	"errors"
	"net/url"
)

// MaxLength is the longest URL the crawler accepts.
const MaxLength = 2048

// Canonical resolves ref against base (nil for an absolute ref) with the
// WHATWG URL algorithm, drops the fragment, and accepts only http and https
// URLs of at most MaxLength bytes.
func Canonical(ref string, base *url.URL) (*url.URL, error) {
	return nil, errors.New("urls: not implemented yet")
}

// Filter decides whether a URL may be crawled.
type Filter interface {
	Match(u *url.URL) bool
}
