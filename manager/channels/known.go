package channels

import (
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/pieces"
	"github.com/hivecrawl/hivecrawl/task"
)

// What a task carries about its known pages is bounded whatever the host's
// size (design.md §8, "tasks stay small"):
//
//   - Pageseen is an exact digest list for at most listPages pages (about
//     11 bytes of JSON each), and a Bloom filter at task.DefaultFalsePositive
//     above that (about 1.6 bytes each once base64-encoded), capped at
//     task.MaxFilterBytes. A channel or piece with more pages than the
//     largest filter holds at that rate puts in the most recently crawled
//     ones; the others count as new and are uploaded again, which costs
//     bandwidth but keeps the false-positive rate, and so freshness, as
//     sized.
//   - The pages a task revisits (chosen by the channel's page plan,
//     pageplan.go) are listed as validators, in the plan's order, up to
//     task.MaxValidators pages and validatorBytes of URLs and values
//     (about 1,000 pages of 100-byte URLs and validators); the crawler
//     queues each at its
//     depth and asks with a conditional GET. Pages past the bound are
//     neither listed nor skipped: they are fetched in full when a link
//     leads to them, and lead the list of a later round. The known pages
//     the plan leaves alone go in a Bloom filter of their URL digests
//     (Skip), sized like Pageseen's.
//   - A piece carries only the pages of its directories (and the host's
//     main page, which every piece fetches as its seed).
const (
	listPages      = 1000
	validatorBytes = 160 << 10
	// validatorFraming is the JSON around one validator's strings.
	validatorFraming = 56
)

// missLimit is how many crawls in a row may miss a known page before the
// channel forgets it (see Channel.countMisses).
const missLimit = 3

// known fills t's Pageseen from the given pages of c, and its validators
// and Skip filter by plan.
func (c *Channel) known(t *task.Task, urls []string, plan PagePlan, round int, parents map[task.Digest]parent) {
	if len(urls) <= listPages {
		list := make([]task.Digest, 0, len(urls))
		for _, u := range urls {
			list = append(list, c.Pages[u].Digest)
		}
		slices.Sort(list)
		t.KnownPages = slices.Compact(list)
	} else {
		t.KnownFilter = c.filter(urls, func(u string) task.Digest { return c.Pages[u].Digest })
	}
	list, skip := c.revisit(urls, plan, round, parents)
	t.Validators = c.validators(list)
	if len(skip) > 0 {
		t.Skip = c.filter(skip, task.DigestString)
	}
}

// filter returns a Bloom filter of the digests of the given pages, sized
// for them at task.DefaultFalsePositive; past the largest filter's
// capacity it holds the most recently crawled ones.
func (c *Channel) filter(urls []string, digest func(string) task.Digest) *task.Filter {
	if limit := task.FilterCapacity(task.DefaultFalsePositive); len(urls) > limit {
		urls = slices.Clone(urls)
		slices.SortFunc(urls, func(a, b string) int {
			return cmp.Or(c.Pages[b].Crawled.Compare(c.Pages[a].Crawled), strings.Compare(a, b))
		})
		urls = urls[:limit]
	}
	f := task.NewFilter(len(urls), task.DefaultFalsePositive)
	for _, u := range urls {
		f.Add(digest(u))
	}
	return f
}

// validators lists the given pages, in order, as a task's validators, as
// many as the bounds allow.
func (c *Channel) validators(urls []string) []task.Validator {
	var out []task.Validator
	size := 0
	for _, u := range urls {
		p := c.Pages[u]
		size += len(u) + len(p.ETag) + len(p.LastModified) + validatorFraming
		if len(out) >= task.MaxValidators || size > validatorBytes {
			break
		}
		v := task.Validator{URL: u, Depth: p.Depth}
		if p.Misses == 0 {
			// A page missed last time is asked for in full: its
			// validators may be of a page since removed and recreated.
			v.ETag, v.LastModified = p.ETag, p.LastModified
		}
		out = append(out, v)
	}
	return out
}

// revisits are the known pages a task revisited (listed as validators),
// by URL digest; nil when the task's list was not recorded.
type revisits map[task.Digest]bool

// has reports whether the task revisited u.
func (r revisits) has(u string) bool { return r[task.DigestString(u)] }

// listedPages returns the known pages an encoded task revisits, nil when
// the spec is gone or does not decode. It reads the validators' URLs
// alone: the spec is the manager's own, checked when it was issued.
func listedPages(spec []byte) revisits {
	if len(spec) == 0 {
		return nil
	}
	var t struct {
		Validators []struct {
			URL string `json:"url"`
		} `json:"validators"`
	}
	if err := json.Unmarshal(spec, &t); err != nil {
		return nil
	}
	out := make(revisits, len(t.Validators))
	for _, v := range t.Validators {
		out[task.DigestString(v.URL)] = true
	}
	return out
}

// listedDigests is listedPages as a list, for a task record that keeps
// it once its spec is dropped (Task.Listed); nil when not recorded.
func listedDigests(spec []byte) []task.Digest {
	r := listedPages(spec)
	if r == nil {
		return nil
	}
	out := make([]task.Digest, 0, len(r))
	for d := range r {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// revisited returns the pages task t revisited: from its spec while it
// has one, else from the list kept when it was sent.
func (t Task) revisited() revisits {
	if r := listedPages(t.Spec); r != nil {
		return r
	}
	if !t.ListedKept {
		return nil
	}
	out := make(revisits, len(t.Listed))
	for _, d := range t.Listed {
		out[d] = true
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
//
// When the task recorded the pages it revisited (listed), only those can
// be missed: a page the plan left alone was not asked for.
func (c *Channel) countMisses(fb Feedback, taskID string, round int, listed revisits) {
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
		if !inScope(u) || (listed != nil && !listed.has(u)) {
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
