package app

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestSoloAPICrawlsAddedSeeds runs a real client in solo mode (no network
// profile): a seed added through AddSeeds becomes a channel, the embedded
// manager schedules it, the client crawls it, and its pages' text comes
// back from the WARC records.
func TestSoloAPICrawlsAddedSeeds(t *testing.T) {
	srv := smallSites(t)
	c, ctx := startSolo(t, true)

	// A bad URL refuses the whole request, with the seed parser's words.
	_, err := c.AddSeeds(ctx, []string{srv.URL + "/s/0/", "ftp://example.org/"})
	if !errors.Is(err, localapi.ErrInvalid) || !strings.Contains(err.Error(), "scheme must be http or https") {
		t.Fatalf("AddSeeds with a bad URL: %v", err)
	}
	if chs, err := c.SoloChannels(ctx); err != nil || len(chs) != 0 {
		t.Fatalf("channels after a refused request: %+v, %v", chs, err)
	}

	res, err := c.AddSeeds(ctx, []string{srv.URL + "/s/0/"})
	host := strings.TrimPrefix(srv.URL, "http://")
	if err != nil || res.Added != 1 || len(res.Created) != 1 || res.Created[0] != host {
		t.Fatalf("AddSeeds: %+v, %v", res, err)
	}
	var ch localapi.SoloChannel
	eventually(t, "the channel's first crawl stored", func() bool {
		chs, err := c.SoloChannels(ctx)
		if err != nil || len(chs) != 1 {
			return false
		}
		ch = chs[0]
		return ch.Updates > 0 && !ch.Crawling
	})
	if ch.ID != host || ch.IntervalSeconds <= 0 || ch.LastSubmit.IsZero() ||
		!ch.NextCrawl.Equal(ch.LastSubmit.Add(time.Duration(ch.IntervalSeconds*float64(time.Second)))) {
		t.Errorf("channel %+v: want an interval and the next crawl one interval after the last", ch)
	}
	// The storage module indexes the pages just after the channel records
	// the result.
	var ps localapi.SoloPages
	eventually(t, "the pages' text indexed", func() bool {
		ps, err = c.SoloPages(ctx, host)
		return err == nil && len(ps.Pages) > 0 && ps.Pages[0].HasText
	})
	want := map[string]bool{srv.URL + "/s/0/": true, srv.URL + "/s/0/a.html": true, srv.URL + "/s/0/b.html": true}
	if ps.Total != 3 || len(ps.Pages) != 3 || ch.Pages != 3 {
		t.Fatalf("pages %+v (channel says %d), want the index and its two pages", ps, ch.Pages)
	}
	for _, p := range ps.Pages {
		if !want[p.URL] || !p.HasText || p.Crawled.IsZero() {
			t.Errorf("page %+v", p)
		}
	}
	txt, err := c.SoloText(ctx, srv.URL+"/s/0/a.html")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.Text, "Some words about /s/0/a.html for the index.") || txt.Title != "/s/0/a.html" || txt.File == "" {
		t.Errorf("stored text %+v", txt)
	}

	// The stored text is searchable, once the storage module has indexed
	// it, just after it committed the pages.
	var found localapi.SearchResults
	eventually(t, "the pages indexed for search", func() bool {
		found, err = c.SoloSearch(ctx, "index", 10)
		return err == nil && found.Total == 3
	})
	found, err = c.SoloSearch(ctx, `"about /s/0/a.html"`, 10)
	if err != nil || found.Total != 1 || found.Hits[0].URL != srv.URL+"/s/0/a.html" || found.Hits[0].Channel != host || len(found.Hits[0].Snippet) == 0 {
		t.Errorf("search for a phrase of a stored page: %+v, %v", found, err)
	}
	if _, err := c.SoloSearch(ctx, `title:"open`, 10); !errors.Is(err, localapi.ErrInvalid) {
		t.Errorf("a query that does not parse: %v, want ErrInvalid", err)
	}

	for name, err := range map[string]error{
		"pages of an unknown channel":  second(c.SoloPages(ctx, "nowhere.example")),
		"text of a page never crawled": second(c.SoloText(ctx, srv.URL+"/s/9/")),
	} {
		if !errors.Is(err, localapi.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
}

// TestSoloAPIOutsideSoloMode: a client in local mode says how to leave it.
func TestSoloAPIOutsideSoloMode(t *testing.T) {
	home := t.TempDir()
	quietConfig(t, home, "")
	c, err := New(context.Background(), Options{Home: home, Mode: ModeLocal, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.AddSeeds(context.Background(), []string{"http://example.org/"})
	if !errors.Is(err, localapi.ErrNotSolo) || !strings.Contains(err.Error(), "without --local") {
		t.Errorf("AddSeeds in local mode: %v", err)
	}
	if _, err := c.SoloChannels(context.Background()); !errors.Is(err, localapi.ErrNotSolo) {
		t.Errorf("SoloChannels in local mode: %v", err)
	}
}

// startSolo starts a real client in solo mode (no network profile) with a
// fast schedule; it stops when the test ends.
func startSolo(t *testing.T, allowLoopback bool) (*Client, context.Context) {
	t.Helper()
	return startSoloWith(t, allowLoopback, manager.Options{Schedule: manager.ScheduleOptions{Tick: 200 * time.Millisecond}})
}

// startSoloWith is startSolo with the embedded manager's options.
func startSoloWith(t *testing.T, allowLoopback bool, mo manager.Options) (*Client, context.Context) {
	t.Helper()
	home := t.TempDir()
	quietConfig(t, home, `, "delay": "10ms"`)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(ctx, Options{
		Home: home, AllowLoopback: allowLoopback, Logger: quiet, Version: "test",
		Manager: mo,
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := c.Serve(ctx); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	if c.Mode() != ModeSolo {
		t.Fatalf("mode %s, want solo", c.Mode())
	}
	return c, ctx
}

// soloChannel returns channel id as the local API lists it, ok false when
// it is not listed.
func soloChannel(t *testing.T, c *Client, id string) (localapi.SoloChannel, bool) {
	t.Helper()
	chs, err := c.SoloChannels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chs {
		if ch.ID == id {
			return ch, true
		}
	}
	return localapi.SoloChannel{}, false
}

// TestSoloRefusesPrivateSeeds: without the loopback switch, a seed the
// crawler would never fetch is refused when added, with the reason; a name
// that resolves to such an address is only found out by its crawl, and its
// channel then says why it fails.
func TestSoloRefusesPrivateSeeds(t *testing.T) {
	srv := smallSites(t)
	c, ctx := startSolo(t, false)
	for _, seed := range []string{srv.URL + "/", "http://10.1.2.3/", "http://[::1]:8080/", "http://localhost/", "http://169.254.169.254/latest/"} {
		_, err := c.AddSeeds(ctx, []string{seed})
		if !errors.Is(err, localapi.ErrInvalid) || !strings.Contains(err.Error(), "only public web sites") || !strings.Contains(err.Error(), "--allow-loopback") {
			t.Errorf("AddSeeds(%s) = %v, want a refusal with the reason", seed, err)
		}
	}
	// localhost resolves to loopback: what a name resolving to a private
	// address looks like, added past the API's check.
	seed := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/"
	if _, err := c.solo.AddSeeds([]string{seed}); err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(strings.TrimSuffix(seed, "/"), "http://")
	var ch localapi.SoloChannel
	eventually(t, "the crawl of a loopback name to fail", func() bool {
		ch, _ = soloChannel(t, c, id)
		return ch.State == localapi.StateFailing
	})
	if !strings.Contains(ch.Reason, "not public") || ch.Last == nil || ch.Last.Stopped != "forbidden address" || ch.Last.Errors["forbidden_address"] != 1 {
		t.Fatalf("failing channel %+v (last %+v)", ch, ch.Last)
	}
}

// TestSoloChannelControls: a channel is paused, crawled now once while
// paused, limited to its seeds, resumed and removed, through the client's
// API, with a real crawl in between.
func TestSoloChannelControls(t *testing.T) {
	srv := smallSites(t)
	c, ctx := startSolo(t, true)
	id := strings.TrimPrefix(srv.URL, "http://")
	if _, err := c.AddSeeds(ctx, []string{srv.URL + "/s/0/"}); err != nil {
		t.Fatal(err)
	}
	var ch localapi.SoloChannel
	eventually(t, "the first crawl", func() bool {
		ch, _ = soloChannel(t, c, id)
		return ch.Updates == 1 && ch.State == localapi.StateWaiting
	})
	if ch.Last == nil || ch.Last.Pages != 3 || ch.OtherHosts || ch.MaxDepth != 5 || ch.Reason != "" {
		t.Fatalf("after the first crawl: %+v (last %+v)", ch, ch.Last)
	}

	if ch, err := c.ChannelAction(ctx, id, localapi.ChannelPause); err != nil || ch.State != localapi.StatePaused || !strings.Contains(ch.Reason, "paused by you") {
		t.Fatalf("pause: %+v, %v", ch, err)
	}
	depth := 0
	if ch, err := c.SetChannel(ctx, id, localapi.ChannelSettings{MaxDepth: &depth}); err != nil || ch.MaxDepth != 0 {
		t.Fatalf("settings: %+v, %v", ch, err)
	}
	bad := 99
	if _, err := c.SetChannel(ctx, id, localapi.ChannelSettings{MaxDepth: &bad}); !errors.Is(err, localapi.ErrInvalid) {
		t.Fatalf("a depth out of range: %v", err)
	}
	if _, err := c.ChannelAction(ctx, id, localapi.ChannelCrawl); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the crawl asked for", func() bool {
		ch, _ = soloChannel(t, c, id)
		return ch.Updates == 2 && !ch.Crawling
	})
	if ch.State != localapi.StatePaused || ch.Rounds != 2 || ch.Last.Pages != 1 {
		t.Fatalf("after crawl now on a paused channel: %+v (last %+v), want still paused, the seed alone fetched", ch, ch.Last)
	}
	if ch, err := c.ChannelAction(ctx, id, localapi.ChannelResume); err != nil || ch.State != localapi.StateWaiting {
		t.Fatalf("resume: %+v, %v", ch, err)
	}
	if _, err := c.ChannelAction(ctx, id, localapi.ChannelRemove); err != nil {
		t.Fatal(err)
	}
	if _, listed := soloChannel(t, c, id); listed {
		t.Fatal("a removed channel is still listed")
	}
	if _, err := c.ChannelAction(ctx, id, localapi.ChannelPause); !errors.Is(err, localapi.ErrNotFound) {
		t.Fatalf("pause of a removed channel: %v", err)
	}
	if _, err := c.ChannelAction(ctx, "nowhere.example", localapi.ChannelCrawl); !errors.Is(err, localapi.ErrNotFound) {
		t.Fatalf("crawl now of an unknown channel: %v", err)
	}

	// Each action is one line of the event log, in memory and on disk.
	log, err := c.Events(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range log.Events {
		msgs = append(msgs, e.Message)
	}
	all := strings.Join(msgs, "|")
	file, err := os.ReadFile(log.File)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Channel removed", "Channel resumed", "Channel to be crawled now", "Channel settings changed", "Channel paused", "Seeds added"} {
		if !strings.Contains(all, want) || !strings.Contains(string(file), want) {
			t.Errorf("event %q missing: events %s; file %s", want, all, log.File)
		}
	}
	if strings.Index(all, "Channel removed") > strings.Index(all, "Channel paused") {
		t.Errorf("events not newest first: %s", all)
	}
}

func second[T any](_ T, err error) error { return err }
