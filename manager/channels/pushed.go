package channels

import (
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"

	"github.com/hivecrawl/hivecrawl/crawler/urls"
	"github.com/hivecrawl/hivecrawl/task"
)

// A site may push the URLs it changed (IndexNow, manager/indexnow). The
// channel keeps them in its record until a round that carried them ends:
//
//   - Push records them and makes the channel due at the next tick.
//   - Tasks puts them first among the pages the next round's tasks
//     revisit, fetched whether or not a link leads to them, and in full.
//   - MarkPushes, once the round is issued, records which round carries
//     them; a URL pushed meanwhile waits for the round after, which it
//     makes due.
//   - When that round ends with a result they are forgotten; when it ends
//     without one (its tasks lost or cancelled) they wait for the next
//     round, up to maxPushTries rounds.
//
// They are cleared when the round ends rather than when it is issued, so
// a lost task does not lose them. The cost: a round split into pieces
// that brought some result forgets the URLs of a piece that brought none.
const (
	// MaxPushed and maxPushedBytes bound the URLs a channel keeps pushed,
	// so that they fit in a task beside its other known pages.
	MaxPushed      = 500
	maxPushedBytes = 64 << 10
	// maxPushTries is how many rounds without a result a pushed URL
	// waits through before it is forgotten.
	maxPushTries = 3
)

// Pushes are the URLs a channel's site pushed that no round has brought
// back yet.
type Pushes struct {
	// Seq numbers the pushes; each URL carries the number of its latest.
	Seq  uint64 `json:"seq,omitempty"`
	URLs []Push `json:"urls,omitempty"`
}

// Push is one pushed URL.
type Push struct {
	URL string    `json:"u"`
	At  time.Time `json:"t"`
	Seq uint64    `json:"q"`
	// Round is the round that carries it; 0 while it waits for one.
	Round int `json:"r,omitempty"`
	// Tries counts the rounds that carried it and ended without a result.
	Tries int `json:"n,omitempty"`
}

// PushOutcome is what Push did.
type PushOutcome struct {
	// Added counts the URLs now waiting for a round (new, or pushed
	// again); Ignored those outside the channel's host or filters, or
	// beyond MaxPushed URLs or 64 KiB of them.
	Added, Ignored int
	// Due is set when the channel was made due at the next tick.
	Due bool
}

// Push records urls, pushed by channel id's site, for its next round, and
// makes the channel due at the next tick unless its user paused it (a
// paused channel keeps them for the round its user lets start). The URLs
// should be canonical (crawler/urls.Canonical). A URL already waiting is
// kept once; one pushed again while a round carries it waits for the next
// round too, as the page may have changed after it was fetched. It is
// ErrNotFound or ErrRemoved when the channel is not crawled.
func (d *DB) Push(id string, pushed []string, now time.Time) (PushOutcome, error) {
	var out PushOutcome
	_, err := d.control(id, func(c *Channel) error {
		out = c.push(pushed, now)
		return nil
	})
	if err != nil {
		return PushOutcome{}, fmt.Errorf("record pushed URLs: %w", err)
	}
	return out, nil
}

func (c *Channel) push(pushed []string, now time.Time) PushOutcome {
	var out PushOutcome
	filter, err := urls.Regexes(c.Filters)
	if err != nil { // the crawler refuses such a task too
		out.Ignored = len(pushed)
		return out
	}
	at := make(map[string]int, len(c.Pushed.URLs))
	size := 0
	for i, p := range c.Pushed.URLs {
		at[p.URL] = i
		size += len(p.URL)
	}
	for _, raw := range pushed {
		u, err := url.Parse(raw)
		if err != nil || u.Host != c.ID || !filter.Match(u) {
			out.Ignored++
			continue
		}
		c.Pushed.Seq++
		p := Push{URL: raw, At: now, Seq: c.Pushed.Seq}
		if i, ok := at[raw]; ok {
			c.Pushed.URLs[i] = p
		} else if len(c.Pushed.URLs) < MaxPushed && size+len(raw) <= maxPushedBytes {
			at[raw] = len(c.Pushed.URLs)
			c.Pushed.URLs = append(c.Pushed.URLs, p)
			size += len(raw)
		} else {
			out.Ignored++
			continue
		}
		out.Added++
	}
	if out.Added > 0 && !c.Paused {
		c.CrawlSoon, out.Due = true, true
	}
	return out
}

// addPushed puts the URLs c's site pushed into ts, the tasks Tasks builds
// for c's next round, first among the pages each revisits (its
// validators): the crawler queues them whether or not a link leads to
// them, a known page at its depth (at the task's MaxDepth when it lies
// deeper, so that it is fetched but not followed) and a new one as a
// seed, and fetches them in full (no ETag or Last-Modified goes with
// them). On a host
// crawled in pieces a URL goes to the piece covering its directory; one
// no piece covers goes to the first piece as a seed, which its filters do
// not stop. Validators of the plan's beyond task.MaxValidators are
// dropped.
func (c *Channel) addPushed(ts []*task.Task) {
	if len(c.Pushed.URLs) == 0 || len(ts) == 0 {
		return
	}
	split := len(c.Pieces) >= 2 && len(ts) == len(c.Pieces)
	piece := make(map[string]int)
	for i, p := range c.Pieces {
		for _, d := range p.Dirs {
			piece[d] = i
		}
	}
	add := make([][]task.Validator, len(ts))
	for _, p := range c.Pushed.URLs {
		i, ok := 0, true
		if split {
			i, ok = piece[pageDir(p.URL)]
		}
		if !ok {
			if !slices.Contains(ts[0].Seeds, p.URL) && len(ts[0].Seeds) < task.MaxSeeds {
				ts[0].Seeds = append(ts[0].Seeds, p.URL)
			}
			continue
		}
		add[i] = append(add[i], task.Validator{URL: p.URL, Depth: min(c.Pages[p.URL].Depth, ts[i].MaxDepth)})
	}
	for i, t := range ts {
		if len(add[i]) == 0 {
			continue
		}
		pushed := make(map[string]bool, len(add[i]))
		for _, v := range add[i] {
			pushed[v.URL] = true
		}
		rest := slices.DeleteFunc(t.Validators, func(v task.Validator) bool { return pushed[v.URL] })
		rest = rest[:min(len(rest), task.MaxValidators-len(add[i]))]
		t.Validators = append(add[i], rest...)
	}
}

// MarkPushes records that round, issued for channel id from its record
// whose Pushed.Seq was seq, carries the URLs pushed up to seq. URLs pushed
// after seq wait for the next round and make the channel due again (Issue
// cleared CrawlSoon), unless it is paused.
func (d *DB) MarkPushes(id string, round int, seq uint64) error {
	err := d.db.Update(func(tx kv.Tx) error {
		b := channelsIn(tx)
		var c Channel
		found, err := getJSON(b, []byte(id), &c)
		if err != nil || !found || c.Round != round || len(c.Pushed.URLs) == 0 {
			return err
		}
		later := false
		for i, p := range c.Pushed.URLs {
			if p.Seq <= seq {
				c.Pushed.URLs[i].Round = round
			} else if p.Round == 0 {
				later = true
			}
		}
		if later && !c.Paused && !c.Removed() {
			c.CrawlSoon = true
		}
		return putJSON(b, []byte(id), &c)
	})
	if err != nil {
		return fmt.Errorf("mark the pushed URLs of %s round %d: %w", id, round, err)
	}
	return nil
}

// settlePushes ends the pushed URLs carried by round, or an earlier one,
// when that round ended: forgotten when it brought a result (ok), else
// waiting for the next round until they have waited through maxPushTries.
func (c *Channel) settlePushes(round int, ok bool) {
	if len(c.Pushed.URLs) == 0 {
		return
	}
	kept := c.Pushed.URLs[:0]
	for _, p := range c.Pushed.URLs {
		switch {
		case p.Round == 0 || p.Round > round:
			kept = append(kept, p)
		case ok:
		case p.Tries+1 < maxPushTries:
			p.Round, p.Tries = 0, p.Tries+1
			kept = append(kept, p)
		}
	}
	c.Pushed.URLs = slices.Clip(kept)
	if len(kept) == 0 {
		c.Pushed.URLs = nil
	}
}
