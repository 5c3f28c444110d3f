package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/sitemap"
	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// Sitemap limits of one task. A sitemap file is also held to
// Config.MaxBodyBytes, as it comes off the wire and again decompressed.
const (
	// MaxSitemaps bounds the sitemap files one task requests: those its
	// hosts' robots.txt files name and the children of sitemap indexes.
	MaxSitemaps = 20
	// MaxSitemapURLs bounds the page URLs one task takes from sitemaps.
	MaxSitemapURLs = sitemap.MaxEntries
)

// sitemapDepth is the depth of a page listed in a sitemap: one hop from the
// seeds, as if the site's main page linked to it, so a seeds-only task
// (MaxDepth 0) reads no sitemap.
const sitemapDepth = 1

// Problems with a sitemap, counted in Stats.Errors as "sitemap_" + kind.
var (
	errNestedIndex    = errors.New("sitemap index listed in a sitemap index")
	errOffSite        = errors.New("redirect off the channel's hosts")
	errBadGzip        = errors.New("broken gzip sitemap")
	errSitemapURLs    = fmt.Errorf("more than %d page URLs in the task's sitemaps", MaxSitemapURLs)
	errSitemapEntries = fmt.Errorf("more than %d entries in one sitemap", sitemap.MaxEntries)
	errSitemapFiles   = fmt.Errorf("more than %d sitemap files", MaxSitemaps)
)

// sitemapState is what a run keeps of the sitemaps it read.
type sitemapState struct {
	listed int // page URLs taken from sitemaps (MaxSitemapURLs)
	// notModified are known pages their sitemap dates no later than the
	// copy the task knows: their visit reports them without a request.
	notModified map[string]bool
}

// sitemapRef is a sitemap file waiting to be read.
type sitemapRef struct {
	url *url.URL
	// child is set for a sitemap listed in a sitemap index: an index found
	// there is not followed (the protocol nests one level only).
	child bool
}

// readSitemaps reads, once per host and run, the sitemaps rb's robots.txt
// names, and the sitemaps their indexes list, all on the channel's hosts
// and allowed by robots.txt, and takes the pages they list as links at
// sitemapDepth. URLseen holds each sitemap's URL, so a resumed run or a
// continuation does not read it again, and a link to it is not fetched as
// a page.
//
// Pages the task does not know are queued as soon as a sitemap is read:
// after the seeds and the known pages the task lists, before the links
// found on pages. A known page whose validator's Last-Modified is not
// before its <lastmod> is reported Unchanged without a request when its
// turn comes (Stats.PagesSkipped); see takeListed.
//
// A sitemap that fails (status, size, broken XML) is counted in
// Stats.Errors and read as far as it goes; the crawl goes on.
func (r *run) readSitemaps(ctx context.Context, rb *robots) error {
	if rb.sitemapsRead || len(rb.sitemaps) == 0 || r.t.MaxDepth < sitemapDepth {
		return nil
	}
	rb.sitemapsRead = true
	var todo []sitemapRef
	for _, s := range rb.sitemaps {
		if u := r.sitemapURL(s, nil); u != nil {
			todo = append(todo, sitemapRef{url: u})
		}
	}
	for i := 0; i < len(todo) && r.sitemaps.listed < MaxSitemapURLs; i++ {
		ref := todo[i]
		sm, err := r.fetchSitemap(ctx, ref.url)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			r.sitemapFailed(ref.url, err)
			var se *StatusError
			if errors.Is(err, errSitemapFiles) || errors.As(err, &se) && isRetryStatus(se.Code) {
				break // the cap, or a server asking to slow down: its pages first
			}
		}
		if sm == nil {
			continue
		}
		if sm.Truncated {
			r.sitemapFailed(ref.url, errSitemapEntries)
		}
		switch sm.Kind {
		case sitemap.Index:
			if ref.child {
				r.sitemapFailed(ref.url, errNestedIndex)
				continue
			}
			for _, e := range sm.Entries {
				if r.res.Stats.Sitemaps+len(todo)-(i+1) >= MaxSitemaps {
					r.sitemapFailed(ref.url, errSitemapFiles)
					break // no more could be read
				}
				if u := r.sitemapURL(e.Loc, ref.url); u != nil {
					todo = append(todo, sitemapRef{url: u, child: true})
				}
			}
		case sitemap.URLSet, sitemap.Text:
			if err := r.takeListed(ref.url, sm.Entries); err != nil {
				return err
			}
		}
	}
	return nil
}

// sitemapURL resolves a sitemap's location and returns it when it is on the
// channel's hosts and not seen before (marking it seen), else nil.
func (r *run) sitemapURL(loc string, base *url.URL) *url.URL {
	u, err := urls.Canonical(loc, base)
	if err != nil || !r.sameSite(u) || !r.seen.Add(u.String()) {
		return nil
	}
	return u
}

// fetchSitemap requests one sitemap through run.request, following its
// redirects on the channel's hosts, and parses it. With an error it returns
// what could be read, if anything.
func (r *run) fetchSitemap(ctx context.Context, u *url.URL) (*sitemap.Sitemap, error) {
	cur := u
	for hop := 0; ; hop++ {
		if r.res.Stats.Sitemaps >= MaxSitemaps {
			return nil, errSitemapFiles
		}
		rb, err := r.robotsFor(ctx, cur)
		if err != nil {
			return nil, err
		}
		if rb.err != nil {
			return nil, rb.err
		}
		if !rb.allowed(cur) {
			return nil, fmt.Errorf("sitemap %s: %w", cur, ErrRobotsDenied)
		}
		r.res.Stats.Sitemaps++
		resp, err := r.request(ctx, request{URL: cur, AnyType: true})
		if err != nil && !errors.Is(err, ErrBodyTooLarge) {
			return nil, err
		}
		switch {
		case isRedirect(resp.Status):
			loc := resp.Header.Get("Location")
			next, perr := urls.Canonical(loc, cur)
			switch {
			case loc == "" || perr != nil:
				return nil, fmt.Errorf("redirect from %s to %q: %w", cur, loc, ErrBadRedirect)
			case hop+1 > r.cfg.MaxRedirects:
				return nil, fmt.Errorf("redirect from %s: %w (%d)", u, ErrTooManyRedirects, r.cfg.MaxRedirects)
			case !r.sameSite(next):
				return nil, fmt.Errorf("redirect from %s to %s: %w", cur, next, errOffSite)
			case !r.seen.Add(next.String()):
				return nil, nil // read already or waiting under its own URL (or a loop)
			}
			cur = next
			continue
		case isRetryStatus(resp.Status):
			wait, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
			if !ok {
				wait = SlowDownRest
				r.res.Strike = task.StrikeSlowDown
			}
			r.nextWait = min(wait, MaxRetryAfter)
			r.c.hosts.resting(cur.Host, time.Now().Add(wait))
			return nil, &StatusError{Code: resp.Status}
		case resp.Status < 200 || resp.Status > 299:
			return nil, &StatusError{Code: resp.Status}
		}
		sm, perr := r.parseSitemap(ctx, resp.Body)
		if err != nil { // the body was cut at the cap: that, not the broken end, is the news
			return sm, err
		}
		return sm, perr
	}
}

// parseSitemap parses a sitemap body, gunzipping it first when it is gzip
// data (a .xml.gz file, whatever its Content-Type), within
// Config.MaxBodyBytes decompressed. The parse is admitted against the
// memory budget like a page's: it takes at most about three times the
// bytes it reads (measured on hostile shapes, 10 MiB: up to 30 MB).
func (r *run) parseSitemap(ctx context.Context, body []byte) (*sitemap.Sitemap, error) {
	var in io.Reader = bytes.NewReader(body)
	size := int64(len(body))
	if len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errBadGzip, err)
		}
		defer zr.Close()
		in, size = gzipErrors{zr}, r.cfg.MaxBodyBytes
	}
	if a := r.cfg.Admit; a != nil {
		release, err := a.Admit(ctx, 3*size+2<<20)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	return sitemap.Parse(&capReader{r: in, n: r.cfg.MaxBodyBytes}, sitemap.Options{})
}

// takeListed takes the pages a sitemap lists. A page the task does not
// know is queued as a link at sitemapDepth. A known page is queued already
// (run.queueKnown); when the sitemap dates it no later than the copy the
// task knows, it is marked so that its visit reports it unchanged without
// a request (skipListed). Seeds are always fetched.
func (r *run) takeListed(sm *url.URL, entries []sitemap.Entry) error {
	for _, e := range entries {
		u, err := urls.Canonical(e.Loc, sm)
		if err != nil || !r.sameSite(u) {
			continue // the protocol allows no other host; not reported as a link either
		}
		if r.sitemaps.listed >= MaxSitemapURLs {
			r.sitemapFailed(sm, errSitemapURLs)
			return nil
		}
		r.sitemaps.listed++
		s := u.String()
		v, known := r.validators[s]
		switch {
		case !known:
			if err := r.discover(u, sitemapDepth, 0); err != nil {
				return err
			}
		case notModifiedSince(v, e.LastMod) && !r.seeds[s]:
			if r.sitemaps.notModified == nil {
				r.sitemaps.notModified = make(map[string]bool)
			}
			r.sitemaps.notModified[s] = true
		}
	}
	return nil
}

// notModifiedSince reports whether a page whose last crawl left v has not
// changed by lastmod's account: lastmod is known and not after v's
// Last-Modified.
func notModifiedSince(v task.Validator, lastmod time.Time) bool {
	if lastmod.IsZero() {
		return false
	}
	seen, err := http.ParseTime(v.LastModified)
	return err == nil && !lastmod.After(seen)
}

// skipListed reports u unchanged, as a 304 would have but without a
// request, when its sitemap dated it no later than the copy the task knows
// (Stats.PagesSkipped), and says whether it did. The page keeps its
// validators and has no digest, as a 304's.
func (r *run) skipListed(u *url.URL, depth int, parent task.Digest) (bool, error) {
	s := u.String()
	if !r.sitemaps.notModified[s] {
		return false, nil
	}
	v := r.validators[s]
	r.res.Stats.PagesSkipped++
	r.countDir(u)
	return true, r.emit(&task.Page{URL: s, Depth: depth, Parent: parent, FetchedAt: time.Now().UTC(),
		ETag: v.ETag, LastModified: v.LastModified, Unchanged: true})
}

// sitemapFailed counts a sitemap's problem in Stats.Errors.
func (r *run) sitemapFailed(u *url.URL, err error) {
	kind := Kind(err)
	switch {
	case errors.Is(err, sitemap.ErrMalformed):
		kind = "malformed"
	case errors.Is(err, sitemap.ErrNotSitemap):
		kind = "not_sitemap"
	case errors.Is(err, errNestedIndex):
		kind = "nested_index"
	case errors.Is(err, errBadGzip):
		kind = "bad_encoding"
	case errors.Is(err, errOffSite):
		kind = "off_site"
	case errors.Is(err, errSitemapURLs), errors.Is(err, errSitemapEntries):
		kind = "too_many_urls"
	case errors.Is(err, errSitemapFiles):
		kind = "too_many_files"
	}
	r.res.Stats.AddError("sitemap_" + kind)
	r.log.Debug("Sitemap failed", "url", u.String(), "kind", kind, "err", err)
}

// gzipErrors marks the errors of a gzip stream as errBadGzip, so that a
// broken one ("unexpected EOF") does not read as a network failure.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", errBadGzip, err)
	}
	return n, err
}

// capReader reads at most n bytes of r and fails with ErrBodyTooLarge when
// r holds more.
type capReader struct {
	r io.Reader
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		var one [1]byte
		if k, err := c.r.Read(one[:]); k == 0 {
			return 0, err
		}
		return 0, ErrBodyTooLarge
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	k, err := c.r.Read(p)
	c.n -= int64(k)
	return k, err
}
