package app

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/search"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// maxSoloPages bounds the pages SoloPages lists; maxSoloText the bytes of
// text SoloText returns.
const (
	maxSoloPages = 2000
	maxSoloText  = 1 << 20
)

var _ localapi.Solo = (*Client)(nil)

// needSolo says, outside solo mode, why there is no embedded manager.
func (c *Client) needSolo(doing string) error {
	if c.solo != nil {
		return nil
	}
	how := "seeds are added on the network's manager"
	if c.mode == ModeLocal {
		how = "it crawls its seeds file; start it without --local for solo mode"
	}
	return fmt.Errorf("%s: %w (it is in %s mode: %s)", doing, localapi.ErrNotSolo, c.mode, how)
}

// SoloChannels lists solo mode's channels with their schedule.
func (c *Client) SoloChannels(ctx context.Context) ([]localapi.SoloChannel, error) {
	if err := c.needSolo("list channels"); err != nil {
		return nil, err
	}
	all, err := c.solo.Channels().All(0)
	if err != nil {
		return nil, err
	}
	out := make([]localapi.SoloChannel, 0, len(all))
	paused := c.pausedBecause()
	for _, ch := range all {
		if !ch.Removed() {
			out = append(out, c.soloChannel(ch, paused))
		}
	}
	return out, nil
}

// AddSeeds adds sites by seed URLs to solo mode's manager, all or none,
// through the manager's one way of adding a site (manager.AddSites): a
// refusal names each URL and why. While the client is paused the answer
// says why, so nobody waits for a crawl that cannot start.
func (c *Client) AddSeeds(ctx context.Context, urls []string) (localapi.SeedsAdded, error) {
	if err := c.needSolo("add seeds"); err != nil {
		return localapi.SeedsAdded{}, err
	}
	added, err := c.solo.AddSites(urls)
	if errors.Is(err, channels.ErrBadSeed) {
		return localapi.SeedsAdded{}, localapi.Invalid(err)
	}
	if err != nil {
		return localapi.SeedsAdded{}, err
	}
	res := localapi.SeedsAdded{Created: make([]string, len(added.Created)), Added: len(urls) - len(added.Known) - len(added.OptedOut), Known: added.Known, OptedOut: added.OptedOut}
	for i, ch := range added.Created {
		res.Created[i] = ch.ID
	}
	res.Paused = c.pausedBecause()
	return res, nil
}

// SoloPages lists the pages known of a channel, by URL, and whether their
// text is stored.
func (c *Client) SoloPages(ctx context.Context, channel string) (localapi.SoloPages, error) {
	if err := c.needSolo("list pages"); err != nil {
		return localapi.SoloPages{}, err
	}
	ch, err := c.solo.Channels().Get(channel)
	if errors.Is(err, channels.ErrNotFound) {
		return localapi.SoloPages{}, fmt.Errorf("no channel %q: %w", channel, localapi.ErrNotFound)
	}
	if err != nil {
		return localapi.SoloPages{}, err
	}
	urls := make([]string, 0, len(ch.Pages))
	for u := range ch.Pages {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	res := localapi.SoloPages{Channel: ch.ID, Total: len(urls), Pages: []localapi.SoloPage{}}
	urls = urls[:min(len(urls), maxSoloPages)]
	stored, err := c.solo.Storage().LookupAll(urls)
	if err != nil {
		return res, fmt.Errorf("list pages of %s: %w", channel, err)
	}
	for _, u := range urls {
		res.Pages = append(res.Pages, localapi.SoloPage{URL: u, Crawled: ch.Pages[u].Crawled, HasText: stored[u].File != ""})
	}
	return res, nil
}

// SoloText returns a page's latest stored text, read from its WARC record
// (the first MiB of it).
func (c *Client) SoloText(ctx context.Context, url string) (localapi.SoloText, error) {
	if err := c.needSolo("read a page"); err != nil {
		return localapi.SoloText{}, err
	}
	rec, found, err := c.solo.Storage().Read(ctx, url, maxSoloText)
	if err != nil {
		return localapi.SoloText{}, err
	}
	if !found {
		return localapi.SoloText{}, fmt.Errorf("no stored text of %s: %w", url, localapi.ErrNotFound)
	}
	return localapi.SoloText{
		URL: url, Target: rec.Target, Title: rec.Title, Fetched: rec.Date, Text: rec.Text,
		Truncated: rec.Truncated, File: rec.File, Offset: rec.Offset,
	}, nil
}

// ChannelAction pauses, resumes, removes or crawls now a solo channel.
func (c *Client) ChannelAction(ctx context.Context, id, action string) (localapi.SoloChannel, error) {
	if err := c.needSolo(action + " a channel"); err != nil {
		return localapi.SoloChannel{}, err
	}
	db := c.solo.Channels()
	var (
		ch  channels.Channel
		err error
	)
	switch action {
	case localapi.ChannelCrawl:
		ch, err = db.CrawlNow(id)
		if err == nil {
			c.solo.Wake()
		}
	case localapi.ChannelPause, localapi.ChannelResume:
		ch, err = db.Pause(id, action == localapi.ChannelPause)
	case localapi.ChannelRemove:
		ch, err = db.Remove(id, c.opts.Now())
	default:
		return localapi.SoloChannel{}, localapi.Invalid(fmt.Errorf("no channel action %q", action))
	}
	if err != nil {
		return localapi.SoloChannel{}, channelError(id, err)
	}
	c.log.Info("Channel "+actionPast[action], "channel", id)
	return c.soloChannel(ch, c.pausedBecause()), nil
}

var actionPast = map[string]string{
	localapi.ChannelCrawl: "to be crawled now", localapi.ChannelPause: "paused",
	localapi.ChannelResume: "resumed", localapi.ChannelRemove: "removed",
}

// SetChannel applies a solo channel's settings, all or none.
func (c *Client) SetChannel(ctx context.Context, id string, set localapi.ChannelSettings) (localapi.SoloChannel, error) {
	if err := c.needSolo("change a channel"); err != nil {
		return localapi.SoloChannel{}, err
	}
	ch, err := c.solo.Channels().Set(id, channels.Settings{MaxDepth: set.MaxDepth, MaxPages: set.MaxPages, OtherHosts: set.OtherHosts})
	if err != nil {
		return localapi.SoloChannel{}, channelError(id, err)
	}
	c.log.Info("Channel settings changed", "channel", id, "max_depth", ch.MaxDepth, "max_pages", ch.MaxPages, "other_hosts", c.solo.Channels().FollowsOtherHosts(ch))
	return c.soloChannel(ch, c.pausedBecause()), nil
}

// channelError maps the channel database's errors about channel id to the
// local API's.
func channelError(id string, err error) error {
	switch {
	case errors.Is(err, channels.ErrNotFound):
		return fmt.Errorf("no channel %s (see the list of channels): %w", id, localapi.ErrNotFound)
	case errors.Is(err, channels.ErrRemoved):
		return fmt.Errorf("channel %s was removed; adding a seed URL on its host brings it back: %w", id, localapi.ErrNotFound)
	case errors.Is(err, channels.ErrBusy):
		return localapi.Conflict(err)
	case errors.Is(err, channels.ErrBadSetting):
		return localapi.Invalid(err)
	}
	return err
}

// SoloSearch finds up to n pages solo mode stored that match query.
func (c *Client) SoloSearch(ctx context.Context, query string, n int) (localapi.SearchResults, error) {
	if err := c.needSolo("search"); err != nil {
		return localapi.SearchResults{}, err
	}
	res, err := c.solo.Search().Search(query, n)
	if errors.Is(err, search.ErrBadQuery) {
		return localapi.SearchResults{}, localapi.Invalid(err)
	}
	if err != nil {
		return localapi.SearchResults{}, err
	}
	out := localapi.SearchResults{Query: res.Query, Total: res.Total, Took: res.Took, Hits: make([]localapi.SearchHit, len(res.Hits))}
	for i, h := range res.Hits {
		hit := localapi.SearchHit{URL: h.URL, Channel: h.Channel, Title: h.Title, Fetched: h.Fetched}
		for _, s := range h.Snippet {
			hit.Snippet = append(hit.Snippet, localapi.SnippetSegment{Text: s.Text, Match: s.Match})
		}
		out.Hits[i] = hit
	}
	return out, nil
}
