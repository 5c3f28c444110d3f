package channels

import (
	"cmp"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/task"
)

// PageResult is one stored page of a result, as the storage module
// classified it against what it held.
type PageResult struct {
	URL          string      `json:"url"`
	Digest       task.Digest `json:"digest"`
	ETag         string      `json:"etag,omitempty"`
	LastModified string      `json:"last_modified,omitempty"`
	// Depth and Parent are where the crawl found the page (task.Page).
	Depth  int         `json:"depth,omitempty"`
	Parent task.Digest `json:"parent,omitempty"`
	// Known is set when the page was known before (so it counts as an
	// observation for the change estimate); Changed when its content
	// differs from what was known.
	Known   bool `json:"known"`
	Changed bool `json:"changed"`
}

// Classify turns page p of a result into what the channel database learns
// from it, against the stored copy: known says whether one is stored,
// stored is its digest. unchanged is set when p brings nothing new to
// store: reported unchanged, or with the stored digest. A page reported
// unchanged without a digest (a 304, or a page its sitemap dated before the
// stored copy: no body was digested) keeps the stored digest; a changed
// page is Changed when it was known.
func Classify(p *task.Page, stored task.Digest, known bool) (pr PageResult, unchanged bool) {
	pr = PageResult{URL: p.URL, Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified,
		Depth: p.Depth, Parent: p.Parent, Known: known}
	if p.Unchanged && p.Digest == 0 {
		pr.Digest = stored
	}
	if p.Unchanged || (known && stored == p.Digest) {
		return pr, true
	}
	pr.Changed = known
	return pr, false
}

// Feedback is what one stored result tells the channel database.
type Feedback struct {
	Pages     []PageResult
	Stats     task.Stats
	InterSite []string
	// Stopped is the result's task.Result.Stopped: a crawl cut short does
	// not count its missing pages as gone.
	Stopped string
	// Continue, set for a crawl its volunteer handed off
	// (task.StoppedHandedOff), is the unsigned continuation task: it joins
	// the result's round in the task's place, so the round ends with the
	// continuation's result, not this one.
	Continue *task.Task
	// HostWait and HostRest are what the host asked of its crawler
	// (task.Result): the host's next lease keeps them.
	HostWait time.Duration
	HostRest time.Time
	// HostAddrs are the addresses the crawler connected to its host at
	// (task.Result): the host's per-address limits count them.
	HostAddrs []string
	// Strike is the result's task.Result.Strike: the host rests for
	// every crawler, longer at each strike in a row.
	Strike string
	// Refused is the result's task.Result.Refused: the host's robots.txt
	// refuses the crawl's purpose, and the host rests for
	// task.RefusalRest. It is no strike.
	Refused string
}

// apply folds the result of task id of the given round into the channel;
// listed are the known pages the task revisited (nil: it was not
// recorded), limit the page plan's.
func (c *Channel) apply(fb Feedback, now time.Time, round int, id string, listed revisits, limit int) {
	if c.Pages == nil {
		c.Pages = make(map[string]Page)
	}
	known, changed := 0, 0
	var unchanged []string
	for _, p := range fb.Pages {
		if p.Known {
			known++
			if p.Changed {
				changed++
			}
		}
		old, ok := c.Pages[p.URL]
		np := Page{Digest: p.Digest, ETag: p.ETag, LastModified: p.LastModified, Crawled: now, Since: now,
			Depth: p.Depth, Parent: cmp.Or(p.Parent, old.Parent), Round: round}
		if ok && old.Digest == p.Digest {
			np.Since = old.stableSince()
		}
		f := old.freq()
		if p.Known && ok {
			f.Crawled(p.Changed, limit)
			np.Seen, np.Changes, np.Span = old.Seen, old.Changes, old.Span
			np.observe(p.Changed, round-old.Round)
			if !p.Changed {
				unchanged = append(unchanged, p.URL)
			}
		} else {
			f = recrawl.PageFreq{FrMax: 1} // new: revisited next round
		}
		np.setFreq(f)
		c.Pages[p.URL] = np
	}
	c.selective(unchanged)
	c.countMisses(fb, id, round, listed)
	if !c.LastUpdate.IsZero() && now.After(c.LastUpdate) {
		c.Estimate.Observe(known, changed, now.Sub(c.LastUpdate))
		if v, ok := c.Estimate.Interval(); ok {
			c.ChangeInterval = v
		}
	}
	if c.Dirs == nil {
		c.Dirs = make(map[string]int)
	}
	for dir, n := range fb.Stats.Dirs {
		c.Dirs[dir] = n
	}
	c.ExpectedPages = len(c.Pages)
	if len(fb.InterSite) > 0 {
		set := task.NewDigestSet(c.InterSite)
		for _, u := range fb.InterSite {
			if len(set) >= maxInterSiteDigests {
				break
			}
			set[task.DigestString(u)] = struct{}{}
		}
		c.InterSite = sortedDigests(set)
	}
	c.LastUpdate = now
	c.Updates++
}

// selective applies paper 003's selective incremental rule to the pages a
// crawl found unchanged: one whose children (the pages it links to, as
// Page.Parent records) changed in a share at least its threshold at their
// latest crawl is followed, its children revisited next round whether due
// or not; the threshold moves towards the share seen (PageFreq.Follow).
func (c *Channel) selective(unchanged []string) {
	if len(unchanged) == 0 {
		return
	}
	type tally struct{ seen, changed int }
	kids := make(map[task.Digest]*tally, len(unchanged))
	for _, u := range unchanged {
		kids[task.DigestString(u)] = &tally{}
	}
	for _, p := range c.Pages {
		if k := kids[p.Parent]; p.Parent != 0 && k != nil && p.Records > 0 {
			k.seen++
			if p.History&1 == 1 {
				k.changed++
			}
		}
	}
	for _, u := range unchanged {
		p := c.Pages[u]
		k := kids[task.DigestString(u)]
		p.Follow = false
		if k.seen > 0 {
			f := p.freq()
			p.Follow = f.Follow(float64(k.changed) / float64(k.seen))
			p.setFreq(f)
		}
		c.Pages[u] = p
	}
}
