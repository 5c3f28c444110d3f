package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/indexnow"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// changingSite serves an index linking two pages, a page nothing links
// to, and an IndexNow key file; page a.html's text can be changed. It
// counts the requests per path.
type changingSite struct {
	*httptest.Server
	mu       sync.Mutex
	version  int            // of a.html
	requests map[string]int // path → requests
}

const siteKey = "changing-site-key"

func newChangingSite(t *testing.T) *changingSite {
	s := &changingSite{version: 1, requests: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		version := s.version
		s.mu.Unlock()
		switch r.URL.Path {
		case "/" + siteKey + ".txt":
			fmt.Fprintln(w, siteKey)
		case "/s/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>index</title></head><body><p>The index of the site.</p><a href="a.html">a</a> <a href="b.html">b</a></body></html>`)
		case "/s/a.html", "/s/b.html", "/s/unlinked.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>Page %s, version %d of its words.</p></body></html>", r.URL.Path, r.URL.Path, version)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *changingSite) fetched(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// TestIndexNowRecrawlWithinOneRound runs solo mode with a real crawl: after
// the site's first crawl, the site changes a page and adds one nothing
// links to, and pushes both with IndexNow. The round that follows at once,
// long before the channel's interval, fetches both, and the changed text
// is what is stored.
func TestIndexNowRecrawlWithinOneRound(t *testing.T) {
	site := newChangingSite(t)
	c, ctx := startSoloWith(t, true, manager.Options{Schedule: manager.ScheduleOptions{Tick: 200 * time.Millisecond}, Site: manager.SiteOptions{IndexNow: "127.0.0.1:0"}})
	id := strings.TrimPrefix(site.URL, "http://")
	if _, err := c.AddSeeds(ctx, []string{site.URL + "/s/"}); err != nil {
		t.Fatal(err)
	}
	var ch localapi.SoloChannel
	eventually(t, "the first crawl", func() bool {
		ch, _ = soloChannel(t, c, id)
		return ch.Updates == 1 && !ch.Crawling
	})
	if ch.Rounds != 1 || site.fetched("/s/a.html") != 1 || site.fetched("/s/unlinked.html") != 0 {
		t.Fatalf("first crawl: %d rounds, a.html fetched %d times, unlinked.html %d; want 1, 1, 0",
			ch.Rounds, site.fetched("/s/a.html"), site.fetched("/s/unlinked.html"))
	}
	if next := time.Until(ch.NextCrawl); next < time.Minute {
		t.Fatalf("the next crawl is due in %v: too soon to tell a pushed round from a scheduled one", next)
	}

	site.mu.Lock()
	site.version = 2
	site.mu.Unlock()
	body, _ := json.Marshal(indexnow.Request{Host: "127.0.0.1", Key: siteKey, URLs: []string{site.URL + "/s/a.html", site.URL + "/s/unlinked.html"}})
	resp, err := http.Post(c.solo.IndexNowURL(), "application/json; charset=utf-8", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("IndexNow submission answered %s", resp.Status)
	}

	eventually(t, "the crawl of the pushed URLs", func() bool {
		ch, _ = soloChannel(t, c, id)
		return ch.Updates == 2 && !ch.Crawling
	})
	if ch.Rounds != 2 {
		t.Fatalf("the pushed URLs were crawled in round %d, want the next one, 2", ch.Rounds)
	}
	if a, u := site.fetched("/s/a.html"), site.fetched("/s/unlinked.html"); a != 2 || u != 1 {
		t.Fatalf("after the push a.html was fetched %d times, unlinked.html %d; want 2 and 1", a, u)
	}
	if n := site.fetched("/" + siteKey + ".txt"); n != 1 {
		t.Fatalf("the key file was fetched %d times, want once", n)
	}
	eventually(t, "the changed text stored", func() bool {
		txt, err := c.SoloText(context.Background(), site.URL+"/s/a.html")
		return err == nil && strings.Contains(txt.Text, "version 2 of its words")
	})
	txt, err := c.SoloText(ctx, site.URL+"/s/unlinked.html")
	if err != nil || !strings.Contains(txt.Text, "Page /s/unlinked.html, version 2") {
		t.Fatalf("the pushed page nothing links to: %+v, %v", txt, err)
	}
}
