package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// TestSoloSiteAddedWhilePaused: a site added while the client is paused
// is accepted, the answer says why no crawl starts, and its channel says
// "paused" with the client's reason, also once the manager has sent its
// crawl out (it used to say "crawling" with no page for as long as the
// pause lasted). After resume the crawl comes back.
func TestSoloSiteAddedWhilePaused(t *testing.T) {
	srv := smallSites(t)
	c, ctx := startSolo(t, true)
	if err := c.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the client to pause", func() bool { return c.pausedBecause() != "" })

	res, err := c.AddSeeds(ctx, []string{srv.URL + "/s/0/"})
	if err != nil || len(res.Created) != 1 || !strings.Contains(res.Paused, "Paused by you") {
		t.Fatalf("AddSeeds while paused: %+v, %v; want the pause's reason", res, err)
	}
	id := res.Created[0]
	check := func(when string) localapi.SoloChannel {
		t.Helper()
		ch, ok := soloChannel(t, c, id)
		if !ok || ch.State != localapi.StatePaused || !strings.Contains(ch.Reason, "Hivecrawl is paused (Paused by you)") {
			t.Fatalf("%s: channel %+v, want paused with the client's reason", when, ch)
		}
		return ch
	}
	check("just added")
	// The embedded manager sends the round out whatever the client's
	// pause: the channel stays paused, not crawling.
	eventually(t, "the manager to send the crawl out", func() bool {
		ch, _ := soloChannel(t, c, id)
		return ch.Crawling
	})
	if ch := check("crawl out"); ch.Pages != 0 {
		t.Fatalf("pages fetched while paused: %+v", ch)
	}

	if err := c.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the crawl after resume", func() bool {
		ch, _ := soloChannel(t, c, id)
		return ch.Updates > 0 && ch.State != localapi.StatePaused
	})
}

// TestSoloSeedsFileChecked: the seeds file's sites pass the same check as
// sites added later; a loopback one stops the start with the reason.
func TestSoloSeedsFileChecked(t *testing.T) {
	home := t.TempDir()
	quietConfig(t, home, "")
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(seeds, []byte("http://a.example/\nhttp://127.0.0.1:9/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := New(context.Background(), Options{Home: home, Seeds: seeds, Logger: quiet, Version: "test"})
	if err == nil {
		c.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1 is not a public address") {
		t.Fatalf("New with a loopback seed in solo mode = %v, want the refusal", err)
	}
}
