package app

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/hivecrawl/hivecrawl/manager/channels"
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
	for _, ch := range all {
		sc := localapi.SoloChannel{
			ID: ch.ID, Seeds: ch.Seeds, Added: ch.Added, Crawling: ch.Pending > 0,
			ChangeSeconds: ch.ChangeInterval.Seconds(),
			LastSubmit:    ch.LastSubmit, LastUpdate: ch.LastUpdate,
			Rounds: ch.Round, Updates: ch.Updates, Failures: ch.Failures, Pages: len(ch.Pages),
		}
		if next, iv, ok := c.solo.NextCrawl(ch); ok {
			sc.NextCrawl, sc.IntervalSeconds = next, iv.Seconds()
		}
		out = append(out, sc)
	}
	return out, nil
}

// AddSeeds adds seed URLs to solo mode's manager, all or none: every URL
// is checked with the manager's seed parser first.
func (c *Client) AddSeeds(ctx context.Context, urls []string) (localapi.SeedsAdded, error) {
	if err := c.needSolo("add seeds"); err != nil {
		return localapi.SeedsAdded{}, err
	}
	var bad []error
	for _, u := range urls {
		if _, _, err := channels.ParseSeed(u); err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		return localapi.SeedsAdded{}, localapi.Invalid(fmt.Errorf("nothing added: %w", errors.Join(bad...)))
	}
	created, err := c.solo.AddSeeds(urls)
	if err != nil {
		return localapi.SeedsAdded{}, err
	}
	res := localapi.SeedsAdded{Created: make([]string, len(created)), Added: len(urls)}
	for i, ch := range created {
		res.Created[i] = ch.ID
	}
	c.log.Info("Seeds added", "urls", len(urls), "new_channels", len(created))
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
	rec, found, err := c.solo.Storage().Read(url, maxSoloText)
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
