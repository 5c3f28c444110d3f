package channels

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/pieces"
	"github.com/hivecrawl/hivecrawl/task"
)

// What a task carries about its known pages is bounded whatever the host's
// size (DESIGN §8, "tasks stay small"):
//
//   - Pageseen is an exact digest list for at most listPages pages (about
//     11 bytes of JSON each), and a Bloom filter at task.DefaultFalsePositive
//     above that (about 1.6 bytes each once base64-encoded), capped at
//     task.MaxFilterBytes. A channel or piece with more pages than the
//     largest filter holds at that rate puts in the most recently crawled
//     ones; the others count as new and are uploaded again, which costs
//     bandwidth but keeps the false-positive rate, and so freshness, as
//     sized.
//   - Validators go to at most maxValidators pages and validatorBytes of
//     URLs and values: those seen in the last crawl whose content has been
//     the same the longest (Page.Since), the pages most likely to answer
//     304. The crawler sends conditional GETs only for pages at the task's
//     maximum depth, which the manager does not know, so this is a bet on
//     stability, not on depth.
//   - A piece carries only the pages of its directories (and the host's
//     main page, which every piece fetches as its seed).
const (
	listPages      = 1000
	maxValidators  = 1000
	validatorBytes = 64 << 10
	// validatorFraming is the JSON around one validator's strings.
	validatorFraming = 48
)

// missLimit is how many crawls in a row may miss a known page before the
// channel forgets it (see Channel.countMisses).
const missLimit = 3

// known fills t's Pageseen and validators from the given pages of c.
func (c *Channel) known(t *task.Task, urls []string) {
	if len(urls) <= listPages {
		list := make([]task.Digest, 0, len(urls))
		for _, u := range urls {
			list = append(list, c.Pages[u].Digest)
		}
		slices.Sort(list)
		t.KnownPages = slices.Compact(list)
	} else {
		if limit := task.FilterCapacity(task.DefaultFalsePositive); len(urls) > limit {
			urls = slices.Clone(urls)
			slices.SortFunc(urls, func(a, b string) int {
				return cmp.Or(c.Pages[b].Crawled.Compare(c.Pages[a].Crawled), strings.Compare(a, b))
			})
			urls = urls[:limit]
		}
		f := task.NewFilter(len(urls), task.DefaultFalsePositive)
		for _, u := range urls {
			f.Add(c.Pages[u].Digest)
		}
		t.KnownFilter = f
	}
	t.Validators = c.validators(urls)
}

// validators picks the validators of a task among the given pages.
func (c *Channel) validators(urls []string) []task.Validator {
	var cand []string
	for _, u := range urls {
		if p := c.Pages[u]; (p.ETag != "" || p.LastModified != "") && p.Misses == 0 {
			cand = append(cand, u)
		}
	}
	slices.SortFunc(cand, func(a, b string) int {
		return cmp.Or(c.Pages[a].stableSince().Compare(c.Pages[b].stableSince()), strings.Compare(a, b))
	})
	var out []task.Validator
	size := 0
	for _, u := range cand {
		p := c.Pages[u]
		size += len(u) + len(p.ETag) + len(p.LastModified) + validatorFraming
		if len(out) >= maxValidators || size > validatorBytes {
			break
		}
		out = append(out, task.Validator{URL: u, ETag: p.ETag, LastModified: p.LastModified})
	}
	return out
}

// stableSince is when p's content was last seen to change; records from
// before Since was kept give their last crawl.
func (p Page) stableSince() time.Time {
	if p.Since.IsZero() {
		return p.Crawled
	}
	return p.Since
}

// piecePages returns the URLs of c's known pages per piece: those whose
// first-level directory the piece covers, plus the main page for every
// piece. Pages of directories no piece covers go to none.
func (c *Channel) piecePages() [][]string {
	of := make(map[string]int)
	for i, p := range c.Pieces {
		for _, d := range p.Dirs {
			of[d] = i
		}
	}
	out := make([][]string, len(c.Pieces))
	main := c.mainPage()
	for u := range c.Pages {
		if i, ok := of[pageDir(u)]; ok && u != main {
			out[i] = append(out[i], u)
		}
	}
	if _, ok := c.Pages[main]; ok {
		for i := range out {
			out[i] = append(out[i], main)
		}
	}
	return out
}

// pageDir returns the first-level directory of a page URL as the crawler
// counts it (crawler/urls.Dir): "/news/", or pieces.Root for root-level
// files; "" when the URL does not parse.
func pageDir(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := strings.TrimPrefix(u.EscapedPath(), "/")
	i := strings.IndexByte(p, '/')
	if i < 0 {
		return pieces.Root
	}
	return "/" + p[:i+1]
}

// countMisses counts, for each known page in the crawl's scope that fb did
// not return, one more miss, and forgets pages missed missLimit crawls in
// a row: pages gone from the site (404, removed links) leave the channel,
// and with it the next tasks. A page returned again starts over at 0.
//
// A crawl counts when it is of the current round and ended normally: its
// scope is the whole host for a task of an unsplit channel, or the
// directories of its piece. A crawl cut short (fb.Stopped), or one that
// returned fewer than half the known pages of its scope (a server outage,
// a run of failures the result does not name), counts no misses; a host
// that lost more than half its pages at once keeps them known.
func (c *Channel) countMisses(fb Feedback, taskID string, round int) {
	if round != c.Round || fb.Stopped != "" {
		return
	}
	i, err := strconv.Atoi(taskID[strings.LastIndexByte(taskID, '/')+1:])
	if err != nil {
		return
	}
	var inScope func(u string) bool
	switch {
	case len(c.Pieces) < 2 && i == 0:
		inScope = func(string) bool { return true }
	case len(c.Pieces) >= 2 && i < len(c.Pieces):
		dirs := make(map[string]bool)
		for _, d := range c.Pieces[i].Dirs {
			dirs[d] = true
		}
		inScope = func(u string) bool { return dirs[pageDir(u)] }
	default:
		return
	}
	returned := make(map[string]bool, len(fb.Pages))
	for _, p := range fb.Pages {
		returned[p.URL] = true
	}
	var missed []string
	scope := 0
	for u := range c.Pages {
		if !inScope(u) {
			continue
		}
		scope++
		if !returned[u] {
			missed = append(missed, u)
		}
	}
	if 2*(scope-len(missed)) < scope {
		return
	}
	for _, u := range missed {
		p := c.Pages[u]
		p.Misses++
		if p.Misses >= missLimit {
			delete(c.Pages, u)
			continue
		}
		c.Pages[u] = p
	}
}
