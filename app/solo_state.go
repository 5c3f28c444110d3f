package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// channelState says what channel c is doing and, when it is failing or
// paused, why, in words a volunteer can act on. clientPaused is why the
// whole client is paused ("" when it is not): then no crawl starts or goes
// on, whatever the channel's schedule, and the channel is paused for that
// reason, not "crawling" with no page.
func channelState(c channels.Channel, clientPaused string) (state, reason string) {
	byYou := "paused by you: resume it, or crawl it now once"
	if clientPaused != "" {
		why := "Hivecrawl is paused (" + clientPaused + "): its crawls start when crawling resumes"
		if c.Paused && c.Pending == 0 && !c.CrawlSoon {
			why = byYou + "; " + why
		}
		return localapi.StatePaused, why
	}
	switch {
	case c.Pending > 0:
		return localapi.StateCrawling, ""
	case c.CrawlSoon:
		return localapi.StateStarting, ""
	case c.Paused:
		return localapi.StatePaused, byYou
	}
	if why := failure(c.Last); why != "" {
		return localapi.StateFailing, why
	}
	return localapi.StateWaiting, ""
}

// pausedBecause says why the client starts no crawl, its pause reasons
// joined ("Paused by you", "daily transfer quota of 1 GiB reached"), or ""
// when it may crawl.
func (c *Client) pausedBecause() string {
	_, reasons := c.gov.Paused()
	if c.net != nil {
		if why := c.net.pauseReason(); why != "" {
			reasons = append([]string{why}, reasons...)
		}
	}
	for i, r := range reasons {
		reasons[i] = strings.TrimPrefix(r, "Paused: ")
	}
	return strings.Join(reasons, "; ")
}

// failure says why the crawl that ended as l brought nothing, or "" when
// it brought pages (or there was none yet).
func failure(l *channels.LastCrawl) string {
	switch {
	case l == nil:
		return ""
	case l.Lost == "lost":
		return "the last crawl brought no result in time (the crawler stopped, or could not start it)"
	case l.Lost != "":
		return "the crawler cancelled the last crawl: " + l.Lost
	case l.Stopped == "forbidden address":
		return "its address is not public (loopback, private or link-local): Hivecrawl crawls only public web sites"
	case l.Stopped == "robots.txt unavailable":
		return "its robots.txt could not be read (the server failed), so it is not crawled until it can be"
	case strings.HasPrefix(l.Stopped, crawler.StoppedUnreachable+": "):
		return "its server could not be reached (" + strings.TrimPrefix(l.Stopped, crawler.StoppedUnreachable+": ") + "); it is tried again at the next crawl"
	case strings.HasPrefix(l.Stopped, crawler.StoppedRefused+": "):
		return "its robots.txt refuses search (" + strings.TrimPrefix(l.Stopped, crawler.StoppedRefused+": ") + "), so it is not crawled; it is asked again after 24 hours"
	case strings.HasPrefix(l.Stopped, "server asked to retry"):
		return "the " + l.Stopped + "; it is tried again at the next crawl"
	case l.Pages > 0:
		return ""
	case len(l.Errors) > 0:
		return "nothing could be fetched: " + errorWords(l.Errors)
	}
	return "nothing could be fetched: robots.txt disallows every seed URL"
}

// errorWords describes crawl errors by kind, most frequent first.
func errorWords(errs map[string]int) string {
	kinds := slices.Sorted(maps.Keys(errs))
	slices.SortStableFunc(kinds, func(a, b string) int { return errs[b] - errs[a] })
	words := make([]string, 0, len(kinds))
	for _, k := range kinds {
		w := errorKindWords(k)
		if n := errs[k]; n > 1 {
			w = fmt.Sprintf("%s (%d times)", w, n)
		}
		words = append(words, w)
	}
	return strings.Join(words, "; ")
}

// errorKindWords puts one crawler error kind (crawler.Kind) in words.
func errorKindWords(kind string) string {
	if kind == "http_402" {
		return "the site asks payment to be crawled (HTTP 402)"
	}
	if code, ok := strings.CutPrefix(kind, "http_"); ok {
		return "the server answered HTTP " + code
	}
	switch kind {
	case "dns":
		return "the host name does not resolve"
	case "forbidden_address":
		return "the address is not public"
	case "connection_refused":
		return "the server refuses connections"
	case "connection_reset":
		return "the server closed the connection"
	case "timeout":
		return "the server did not answer in time"
	case "network":
		return "the connection failed"
	case "robots":
		return "robots.txt forbids it"
	case "refused":
		return "the site's content signals refuse search"
	case "body_too_large":
		return "a page was too large"
	case "redirect_loop", "too_many_redirects", "bad_redirect":
		return "the redirects go nowhere (" + strings.ReplaceAll(kind, "_", " ") + ")"
	case "content_type":
		return "the pages are not HTML or text"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// soloChannel is ch as the local API shows it, while the client is
// paused for clientPaused (pausedBecause).
func (c *Client) soloChannel(ch channels.Channel, clientPaused string) localapi.SoloChannel {
	sc := localapi.SoloChannel{
		ID: ch.ID, Seeds: ch.Seeds, Added: ch.Added, Crawling: ch.Pending > 0, Paused: ch.Paused,
		ChangeSeconds: ch.ChangeInterval.Seconds(),
		LastSubmit:    ch.LastSubmit, LastUpdate: ch.LastUpdate,
		Rounds: ch.Round, Updates: ch.Updates, Failures: ch.Failures, Pages: len(ch.Pages),
		MaxDepth: ch.MaxDepth, MaxPages: ch.MaxPages, OtherHosts: c.solo.Channels().FollowsOtherHosts(ch),
	}
	sc.State, sc.Reason = channelState(ch, clientPaused)
	if l := ch.Last; l != nil {
		sc.Last = &localapi.LastCrawl{At: l.At, Pages: l.Pages, Errors: l.Errors, Stopped: l.Stopped, Lost: l.Lost}
	}
	if next, iv, ok := c.solo.NextCrawl(ch); ok {
		sc.NextCrawl, sc.IntervalSeconds = next, iv.Seconds()
		if ch.CrawlSoon {
			sc.NextCrawl = time.Time{}
		}
	}
	return sc
}
