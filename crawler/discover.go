package crawler

import (
	"net/url"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// maxSegmentRepeats rejects URLs whose path repeats a segment more often
// (paper 003 §4 traps: /a/b/a/b/a/b/a/b).
const maxSegmentRepeats = 3

// maxInterSite bounds the inter-site URLs one task reports.
const maxInterSite = 100000

// sameSite reports whether u is on one of the channel's hosts.
func (r *run) sameSite(u *url.URL) bool { return r.hosts[u.Host] }

// adopts reports whether a seed redirected to another host makes that host
// the channel's too. A task under a lease (a network's) keeps to its
// leased host: another host has a lease of its own, and crawling it here
// could put a second crawler on it beside its own. The redirect target is
// then reported as an inter-site URL, so the manager can give it a channel.
func (r *run) adopts() bool { return r.t.Lease.Host == "" }

// addInterSite records a URL on another host unless the task already knows
// it (firewall mode: reported, not followed).
func (r *run) addInterSite(u *url.URL) {
	s := u.String()
	if r.knownInter.Has(task.DigestString(s)) || len(r.res.InterSite) >= maxInterSite {
		return
	}
	if r.interSeen.Add(s) {
		r.res.InterSite = append(r.res.InterSite, s)
	}
}

// queueKnown takes the known pages the task revisits (its validators)
// under their canonical URLs and queues them after the seeds, each at its
// own depth: a page that answers 304 has no body to take links from, so
// the pages it links to come from this list rather than from it. Seeds
// are not queued twice, and pages off the channel's hosts, out of the
// filters or deeper than the task's MaxDepth not at all; robots.txt
// applies when they are visited.
func (r *run) queueKnown() error {
	for _, v := range r.t.Validators {
		u, err := urls.Canonical(v.URL, nil)
		if err != nil {
			continue
		}
		v.URL = u.String()
		r.validators[v.URL] = v
		if v.Depth > r.t.MaxDepth || !r.sameSite(u) || !r.filter.Match(u) || !r.seen.Add(v.URL) {
			continue
		}
		if err := r.todo.Push(entry{URL: v.URL, Depth: v.Depth}); err != nil {
			return err
		}
	}
	return nil
}

// discover queues a link found at the given depth, on the page whose URL
// has digest parent, if the task may crawl it.
func (r *run) discover(u *url.URL, depth int, parent task.Digest) error {
	if !r.sameSite(u) {
		r.addInterSite(u)
		return nil
	}
	if depth > r.t.MaxDepth || urls.RepeatsSegment(u, maxSegmentRepeats) || !r.filter.Match(u) {
		return nil
	}
	s := u.String()
	if len(s) > urls.MaxLength {
		return nil
	}
	if rb, ok := r.robots[u.Scheme+"://"+u.Host]; ok && (!rb.allowed(u) || rb.refusal(u, r.purpose) != "") {
		return nil
	}
	if r.skip != nil && r.skip.Has(task.DigestString(s)) {
		return nil // known, and not due in this crawl
	}
	if r.todo.Len() >= r.todoRoom() {
		return nil // more than the task can still fetch: found again later if needed
	}
	if !r.seen.Add(s) {
		return nil
	}
	return r.todo.Push(entry{URL: s, Depth: depth, Parent: parent})
}

// minTodoRoom is the URLtodo a run keeps room for however few pages its
// task may still fetch: entries that turn out not to be fetched (a
// redirect to a page already seen) leave others their turn.
const minTodoRoom = 1000

// todoRoom is how many URLs the URLtodo may hold: twice the pages the task
// may still fetch, at least minTodoRoom. A URL beyond it could not be
// fetched in this task anyway, and every checkpoint holds the whole
// URLtodo in memory: a host whose pages each link thousands of new URLs
// would otherwise grow it by megabytes a page.
func (r *run) todoRoom() int {
	return max(2*(r.maxPages-r.requests), minTodoRoom)
}
