package channels

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/kv"
)

// Limits on what a user may set of one channel.
const (
	MaxSettableDepth = 20
	MaxSettablePages = 1_000_000
)

// ErrRemoved is the error of an action on a removed channel; ErrBusy of
// crawl now while the channel is being crawled.
var (
	ErrRemoved = errors.New("channel removed")
	ErrBusy    = errors.New("being crawled now")
	// ErrBadSetting is the error of a setting out of range.
	ErrBadSetting = errors.New("bad setting")
)

// LastCrawl is how a channel's latest task ended: what the crawler
// brought back, or why nothing came.
type LastCrawl struct {
	At time.Time `json:"at"`
	// Pages fetched, and the errors met by kind ("forbidden_address",
	// "dns", "http_404", ...).
	Pages  int            `json:"pages"`
	Errors map[string]int `json:"errors,omitempty"`
	// Stopped is why the crawl ended early (task.Result.Stopped).
	Stopped string `json:"stopped,omitempty"`
	// Lost is set when no result came: "lost" (its lease lapsed) or the
	// reason its crawler gave for cancelling it.
	Lost string `json:"lost,omitempty"`
}

// Settings are the per-channel choices a user makes. A nil field is left
// as it is.
type Settings struct {
	MaxDepth *int
	MaxPages *int
	// OtherHosts says whether links to other hosts found by the channel's
	// crawls become channels of their own.
	OtherHosts *bool
}

// Plan returns the page plan the database was opened with, defaults
// filled in.
func (d *DB) Plan() PagePlan { return d.opts.Plan }

// FollowsOtherHosts says whether links to other hosts found by c's crawls
// become channels: c's own choice, or the database's default.
func (d *DB) FollowsOtherHosts(c Channel) bool {
	if c.OtherHosts != nil {
		return *c.OtherHosts
	}
	return !d.opts.StayOnHost
}

// Removed says the user removed the channel: it is not scheduled and is
// left out of lists, but keeps its index (the recrawl strategy numbers
// channels densely) until a seed on its host is added again.
func (c Channel) Removed() bool { return !c.RemovedAt.IsZero() }

// Pause stops (paused) or lets go on (not paused) the scheduling of
// channel id's rounds. A round under way runs to its end.
func (d *DB) Pause(id string, paused bool) (Channel, error) {
	return d.control(id, func(c *Channel) error {
		c.Paused = paused
		return nil
	})
}

// CrawlNow makes channel id due at the schedule's next tick, paused or
// not. It is an error while a round of it is under way.
func (d *DB) CrawlNow(id string) (Channel, error) {
	return d.control(id, func(c *Channel) error {
		if c.Pending > 0 {
			return ErrBusy
		}
		c.CrawlSoon = true
		return nil
	})
}

// Remove takes channel id off the schedule and out of lists. A round under
// way runs to its end and its result is kept; links it finds to other
// hosts create nothing. Adding a seed on its host brings it back.
func (d *DB) Remove(id string, now time.Time) (Channel, error) {
	return d.control(id, func(c *Channel) error {
		c.RemovedAt, c.Paused, c.CrawlSoon = now, false, false
		return nil
	})
}

// Set applies the user's settings to channel id, all or none.
func (d *DB) Set(id string, s Settings) (Channel, error) {
	if s.MaxDepth != nil && (*s.MaxDepth < 0 || *s.MaxDepth > MaxSettableDepth) {
		return Channel{}, fmt.Errorf("%w: "+"depth %d out of range: 0 (the seeds only) to %d", ErrBadSetting, *s.MaxDepth, MaxSettableDepth)
	}
	if s.MaxPages != nil && (*s.MaxPages < 0 || *s.MaxPages > MaxSettablePages) {
		return Channel{}, fmt.Errorf("%w: "+"page limit %d out of range: 0 (the crawler's default) to %d", ErrBadSetting, *s.MaxPages, MaxSettablePages)
	}
	return d.control(id, func(c *Channel) error {
		if s.MaxDepth != nil {
			c.MaxDepth = *s.MaxDepth
		}
		if s.MaxPages != nil {
			c.MaxPages = *s.MaxPages
		}
		if s.OtherHosts != nil {
			v := *s.OtherHosts
			c.OtherHosts = &v
		}
		return nil
	})
}

// control applies fn to channel id, which must not be removed, and returns
// the channel after it.
func (d *DB) control(id string, fn func(*Channel) error) (Channel, error) {
	var out Channel
	err := d.db.Update(func(tx kv.Tx) error {
		out = Channel{} // a run again starts afresh (kv.Store.Update)
		b := channelsIn(tx)
		found, err := getJSON(b, []byte(id), &out)
		switch {
		case err != nil:
			return err
		case !found:
			return ErrNotFound
		case out.Removed():
			return ErrRemoved
		}
		if err := fn(&out); err != nil {
			return err
		}
		return putJSON(b, []byte(id), &out)
	})
	if err != nil {
		return Channel{}, fmt.Errorf("channel %s: %w", id, err)
	}
	return out, nil
}

// lastFromResult records the outcome of a task that brought fb.
func (c *Channel) lastFromResult(fb Feedback, now time.Time) {
	c.Last = &LastCrawl{At: now, Pages: fb.Stats.PagesFetched, Stopped: fb.Stopped}
	if len(fb.Stats.Errors) > 0 {
		c.Last.Errors = maps.Clone(fb.Stats.Errors)
	}
}

// lastLost records a task that ended without a result.
func (c *Channel) lastLost(reason string, now time.Time) {
	if reason == "" {
		reason = "lost"
	}
	c.Last = &LastCrawl{At: now, Lost: reason}
}
