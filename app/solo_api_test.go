package app

import (
	"context"
	"errors"
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
	home := t.TempDir()
	quietConfig(t, home, `, "delay": "10ms"`)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(ctx, Options{
		Home: home, AllowLoopback: true, Logger: quiet, Version: "test",
		Manager: manager.Options{Tick: 200 * time.Millisecond},
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

	// A bad URL refuses the whole request, with the seed parser's words.
	_, err = c.AddSeeds(ctx, []string{srv.URL + "/s/0/", "ftp://example.org/"})
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

func second[T any](_ T, err error) error { return err }
