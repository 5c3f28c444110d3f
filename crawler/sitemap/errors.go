package sitemap

import "errors"

// Sentinel errors of Parse; callers branch on them with errors.Is.
var (
	// ErrNotSitemap: the document is neither a <urlset>, a <sitemapindex>
	// nor a list of http(s) URLs (an HTML page, a feed, binary data).
	ErrNotSitemap = errors.New("not a sitemap")
	// ErrMalformed: the XML is broken; the entries before the break are
	// returned with it.
	ErrMalformed = errors.New("malformed sitemap")
)
