package crawler

import (
	"context"
	"net/url"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// useCanonical applies a fetched page's <link rel=canonical> (declared,
// already canonicalised): one page is one page however many URLs lead to
// it.
//
// The canonical URL counts only when it differs from the page's URLs (as
// requested and as finally fetched), is on one of the channel's hosts,
// passes the task's filters and robots.txt and is no trap. Then:
//
//   - if a page was already recorded under it in this run, the page is a
//     duplicate: it keeps its own URL, DuplicateOf names the canonical, and
//     it carries no text;
//   - otherwise the page is recorded under the canonical URL, FinalURL
//     keeping the URL it was fetched from, and the canonical URL is marked
//     seen: it is not fetched again in this run, nor when it waits in
//     URLtodo (visit skips URLs already recorded).
//
// A noindex page keeps its own URL: it has no text to stand for the
// canonical page, which is still to be fetched. The page's links are
// followed either way. The error is non-nil only when the run must end
// (the context ended while robots.txt was fetched).
func (r *run) useCanonical(ctx context.Context, page *task.Page, final *url.URL, declared string, noindex bool) error {
	if declared == "" || noindex || declared == page.URL || (final != nil && declared == final.String()) {
		return nil
	}
	c, err := url.Parse(declared)
	if err != nil || !r.sameSite(c) || !r.filter.Match(c) || urls.RepeatsSegment(c, maxSegmentRepeats) {
		return nil
	}
	rb, err := r.robotsFor(ctx, c)
	if err != nil {
		return err
	}
	if rb.err != nil || !rb.allowed(c) {
		return nil
	}
	if r.recorded.Has(declared) {
		page.DuplicateOf = declared
		r.log.Debug("Page duplicates its canonical URL", "url", page.URL, "canonical", declared)
		return nil
	}
	if final != nil {
		page.FinalURL = final.String()
	} else {
		page.FinalURL = page.URL
	}
	page.URL = declared
	r.seen.Add(declared)
	return nil
}

// markRecorded notes the URL a page was recorded under, for useCanonical
// and visit: a page fetched (2xx) or reported unchanged (a 304, or skipped
// by its sitemap's lastmod), not a failure, a redirect away or a
// duplicate.
func (r *run) markRecorded(p *task.Page) {
	if r.recorded == nil {
		r.recorded = newSeenSet(0)
	}
	if p.Error == "" && p.DuplicateOf == "" && (p.Unchanged || p.Status/100 == 2) {
		r.recorded.Add(p.URL)
	}
}
