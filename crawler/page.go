package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/extract"
	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// visit fetches one URL (following redirects, retrying on 429/503), turns
// the answer into a task.Page and hands it to the sink. It returns an error
// only when the run must end.
func (r *run) visit(ctx context.Context, u *url.URL, depth int, parent task.Digest) error {
	if r.recorded.Has(u.String()) {
		return nil // a page declaring it canonical was recorded under it
	}
	rb, err := r.robotsFor(ctx, u)
	if err != nil {
		return err
	}
	first := r.res.Stats.PagesFetched == 0 && r.requests == 0
	if rb.err != nil {
		page := &task.Page{URL: u.String(), Depth: depth, FetchedAt: time.Now().UTC()}
		r.fail(page, rb.err, 0)
		if err := r.emit(page); err != nil {
			return err
		}
		if first {
			r.res.Stopped = "forbidden address"
			return errStop
		}
		return nil
	}
	if rb.mode == robotsDisallowAll && r.sameSite(u) && first {
		r.res.Stopped = "robots.txt unavailable"
		if rb.unreachable != nil {
			r.res.Stopped = StoppedUnreachable + ": " + Unreachable(u.Hostname(), rb.unreachable)
		}
		return errStop
	}
	if why := hostRefusal(rb.signals, r.purpose); why != "" && r.sameSite(u) {
		// The site refuses the purpose everywhere: nothing more is asked
		// of it, and the manager leaves it alone as long as a robots.txt
		// may be kept.
		r.res.Stopped = StoppedRefused + ": " + why
		r.res.Refused = why
		return errStop
	}
	if err := r.readSitemaps(ctx, rb); err != nil {
		return err
	}
	if !rb.allowed(u) {
		r.log.Debug("Disallowed by robots.txt", "url", u.String())
		return nil
	}
	if why := rb.refusal(u, r.purpose); why != "" {
		r.log.Debug("Refused by content signals", "url", u.String(), "rule", why)
		return nil
	}
	if skipped, err := r.skipListed(u, depth, parent); skipped || err != nil {
		return err
	}
	r.requests++
	page := &task.Page{URL: u.String(), Depth: depth, Parent: parent}
	var (
		final *url.URL
		resp  *response
	)
	for attempt := 1; ; attempt++ {
		page.FetchedAt = time.Now().UTC()
		final, resp, err = r.follow(ctx, u)
		if ctx.Err() != nil {
			if err == nil {
				r.heed(final.Host, resp)
			}
			return ctx.Err()
		}
		if err == nil {
			if why := challengeOf(resp); why != "" {
				page.Status = resp.Status
				return r.challenged(page, u.Host, why)
			}
			if isBlockStatus(resp.Status) {
				if r.blocks++; r.blocks >= BlockRun {
					page.Status = resp.Status
					return r.challenged(page, u.Host, fmt.Sprintf("%d refusals in a row (last %d)", r.blocks, resp.Status))
				}
			} else {
				r.blocks = 0
			}
		}
		if err != nil || !isRetryStatus(resp.Status) {
			break
		}
		wait, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		if !ok {
			// No word on when to come back: the task stops at once and
			// the host rests, here and, longer at each strike, at the
			// manager for whichever volunteer gets it next.
			r.c.hosts.resting(u.Host, time.Now().Add(SlowDownRest))
			r.res.Strike = task.StrikeSlowDown
			r.res.Stopped = fmt.Sprintf("server answered %d without Retry-After", resp.Status)
			page.Status = resp.Status
			r.fail(page, &StatusError{Code: resp.Status}, resp.Status)
			if err := r.emit(page); err != nil {
				return err
			}
			return errStop
		}
		r.nextWait = wait
		r.c.hosts.resting(u.Host, time.Now().Add(wait)) // whichever run asks next
		if wait > MaxRetryAfter {
			r.res.Stopped = fmt.Sprintf("server asked to retry after %v", wait)
			page.Status = resp.Status
			r.fail(page, &StatusError{Code: resp.Status}, resp.Status)
			if err := r.emit(page); err != nil {
				return err
			}
			return errStop
		}
		if attempt >= maxAttempts {
			break // counted as a failure below
		}
		r.failures++
		if r.failures >= r.cfg.MaxFailures {
			break
		}
		r.log.Debug("Server asked to slow down", "url", u.String(), "status", resp.Status, "wait", wait)
	}
	if final != nil && final.String() != page.URL {
		page.FinalURL = final.String()
	}
	if resp != nil {
		page.Status = resp.Status
	}
	switch {
	case err != nil:
		var refused *refusedError
		if errors.As(err, &refused) {
			page.Refused = refused.rule
		}
		r.fail(page, err, page.Status)
	case resp.Status == 304:
		r.failures = 0
		v := r.validators[page.URL]
		page.ETag, page.LastModified, page.Unchanged = v.ETag, v.LastModified, true
		r.res.Stats.PagesFetched++
		r.res.Stats.PagesUnchanged++
		r.countDir(final)
	case resp.Status >= 300 && resp.Status <= 399:
		r.failures = 0 // a redirect off the channel or out of the filters; nothing more to fetch
	case resp.Status >= 200 && resp.Status <= 299:
		r.failures = 0
		if err := r.process(ctx, page, final, resp, depth); err != nil {
			return err
		}
	case resp.Status == http.StatusPaymentRequired:
		// The site asks payment to be crawled: a refusal, not trouble.
		// Not retried, no strike, nothing stored; the URL is in URLseen,
		// so the task does not ask for it again.
		page.Refused = "HTTP 402 Payment Required"
		r.fail(page, &StatusError{Code: resp.Status}, resp.Status)
	default:
		r.fail(page, &StatusError{Code: resp.Status}, resp.Status)
	}
	return r.emit(page)
}

func (r *run) emit(p *task.Page) error {
	r.markRecorded(p)
	if err := r.sink.Page(p); err != nil {
		return fmt.Errorf("sink page %s: %w", p.URL, err)
	}
	return nil
}

// fail records a page that could not be fetched.
func (r *run) fail(p *task.Page, err error, status int) {
	kind := Kind(err)
	p.Error = kind
	r.res.Stats.AddError(kind)
	if isFailure(kind, status) {
		r.failures++
	} else if !isRetryStatus(status) {
		r.failures = 0
	}
	r.log.Debug("Page failed", "url", p.URL, "kind", kind, "err", err)
}

func (r *run) countDir(u *url.URL) {
	if r.res.Stats.Dirs == nil {
		r.res.Stats.Dirs = make(map[string]int)
	}
	r.res.Stats.Dirs[urls.Dir(u)]++
}

// follow fetches u and follows its redirects, filtering every hop as a
// link: a loop or too long a chain is an error; a hop to another host ends
// the chain as an inter-site URL (except from a seed, where the channel
// adopts the host, as for http → https or a www. prefix); a hop out of the
// filters or to a URL already seen ends the chain quietly.
//
// The GET is conditional when the task gave validators for the URL: a 304
// has no body, so the page's links are not followed, and the pages they
// lead to come from the task's list of known pages (run.queueKnown).
func (r *run) follow(ctx context.Context, u *url.URL) (*url.URL, *response, error) {
	cur := u
	seed := r.seeds[u.String()]
	visited := map[string]bool{u.String(): true}
	for hop := 0; ; hop++ {
		req := request{URL: cur}
		if v, ok := r.validators[cur.String()]; ok {
			req.ETag, req.LastModified = v.ETag, v.LastModified
		}
		resp, err := r.request(ctx, req)
		if err != nil || !isRedirect(resp.Status) {
			return cur, resp, err
		}
		loc := resp.Header.Get("Location")
		next, err := urls.Canonical(loc, cur)
		if loc == "" || err != nil {
			return cur, resp, fmt.Errorf("redirect from %s to %q: %w", cur, loc, ErrBadRedirect)
		}
		key := next.String()
		switch {
		case visited[key]:
			return cur, resp, fmt.Errorf("redirect from %s to %s: %w", cur, key, ErrRedirectLoop)
		case hop+1 > r.cfg.MaxRedirects:
			return cur, resp, fmt.Errorf("redirect from %s: %w (%d)", u, ErrTooManyRedirects, r.cfg.MaxRedirects)
		case urls.RepeatsSegment(next, maxSegmentRepeats):
			return cur, resp, fmt.Errorf("redirect to %s: %w: a path segment repeats more than %d times", key, ErrTrap, maxSegmentRepeats)
		}
		visited[key] = true
		if !r.sameSite(next) {
			if !seed || !r.adopts() {
				r.addInterSite(next)
				return next, resp, nil
			}
			r.hosts[next.Host] = true
		}
		if !seed && !r.filter.Match(next) {
			return next, resp, nil
		}
		if !r.seen.Add(key) && !seed {
			return next, resp, nil // fetched, or queued, under its own URL
		}
		rb, err := r.robotsFor(ctx, next)
		if err != nil {
			return cur, resp, err
		}
		if rb.err != nil {
			return next, resp, rb.err
		}
		if !rb.allowed(next) {
			return next, resp, fmt.Errorf("redirect to %s: %w", key, ErrRobotsDenied)
		}
		if why := rb.refusal(next, r.purpose); why != "" {
			return next, resp, &refusedError{url: key, rule: why}
		}
		cur = next
	}
}

// MaxPageLinks bounds the links taken from one page (the first ones in
// document order): a page of a million links costs no more memory than a
// page of this many.
const MaxPageLinks = 10_000

// process turns a 2xx text response into the page's digest, title, text
// and links. A page whose raw body digest is in Pageseen is parsed for
// links only: its text is neither extracted nor uploaded.
func (r *run) process(ctx context.Context, page *task.Page, final *url.URL, resp *response, depth int) error {
	st := &r.res.Stats
	st.PagesFetched++
	r.countDir(final)
	page.ETag = resp.Header.Get("ETag")
	page.LastModified = resp.Header.Get("Last-Modified")
	page.Digest = task.DigestOf(resp.Body)
	noindex, nofollow := robotsTag(resp.Header.Values("X-Robots-Tag"), r.token)
	signals := append(r.robots[final.Scheme+"://"+final.Host].statements(final), headerSignals(resp.Header)...)
	page.Signals = summary(signals)
	// A page refused is recorded as a noindex page is: without text.
	page.Refused = refusal(signals, r.purpose)
	refused := page.Refused != ""
	if refusal(signals, "bots") != "" {
		nofollow = true // no automated processing at all: its links are not followed either
	}
	unchanged := r.known.Has(page.Digest) || r.knownBloom.Has(page.Digest)
	wantText := !r.cfg.SkipText && !unchanged && !noindex && !refused
	if mark := processingMark(ctx); mark != nil {
		// A mark that cannot be written costs only the crash count's
		// precision; the page goes on.
		_ = mark()
	}
	if a := r.cfg.Admit; a != nil {
		release, err := a.Admit(ctx, ParseCost(len(resp.Body)))
		if err != nil {
			return err
		}
		defer release()
	}
	parsed, err := extract.Parse(resp.Body, resp.RawType, final, extract.Options{Text: wantText, UserAgent: r.token, MaxLinks: MaxPageLinks})
	if err != nil {
		kind := "parse"
		page.Error = kind
		st.AddError(kind)
		r.log.Debug("Page did not parse", "url", page.URL, "err", err)
		return nil
	}
	noindex = noindex || parsed.NoIndex
	nofollow = nofollow || parsed.NoFollow
	page.Title = parsed.Title
	page.OutLinks = len(parsed.Links)
	if err := r.useCanonical(ctx, page, final, parsed.Canonical, noindex || refused); err != nil {
		return err
	}
	switch {
	case page.DuplicateOf != "":
		st.PagesDuplicate++
	case unchanged:
		page.Unchanged = true
		st.PagesUnchanged++
	case r.validators[page.URL].URL != "" || (page.FinalURL != "" && r.validators[page.FinalURL].URL != ""):
		st.PagesChanged++
	default:
		st.PagesNew++
	}
	if noindex {
		page.NoIndex = true
	} else if wantText && parsed.Text != "" && page.DuplicateOf == "" {
		page.Text, page.Compression = textcodec.Encode([]byte(parsed.Text))
		page.TextBytes = len(parsed.Text)
		if r.t.Raw {
			keepRaw(page, resp)
		}
	}
	if nofollow {
		return nil
	}
	parent := task.DigestString(cmp.Or(page.DuplicateOf, page.URL)) // the URL the page is stored under
	for _, l := range parsed.Links {
		if l.NoFollow {
			continue
		}
		lu, err := url.Parse(l.URL)
		if err != nil {
			continue
		}
		if err := r.discover(lu, depth+1, parent); err != nil {
			return err
		}
	}
	return nil
}
