package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/swarm/netlab"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// walkPages is how many pages a walk-through site links from its index.
const walkPages = 30

// walkSite is a small site of walkPages pages, each with a word of its own
// ("wordN") to search for.
func walkSite(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>%s %s</title></head><body><article><h1>%s, page %s</h1>", name, r.URL.Path, name, r.URL.Path)
		fmt.Fprintf(w, "<p>This page of %s is about %s%s, and says so in a sentence long enough to count as text for the index.</p>", name, name, strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".html"))
		if r.URL.Path == "/" {
			for i := range walkPages {
				fmt.Fprintf(w, `<a href="/p%d.html">page %d</a> `, i, i)
			}
		}
		fmt.Fprint(w, "</article></body></html>")
	})
}

// TestBrowserWalkthrough walks a new user's path through the dashboard in
// headless Chromium, with a client that crawls as it would on the real web
// (loopback refused): it adds a loopback site and is told why not, adds
// two real sites (served in network namespaces at documentation
// addresses), watches a crawl's progress, removes one site, crawls the
// other now, and searches a word of a crawled page. Each step's page is a
// screenshot in docs/user/walkthrough.md.
func TestBrowserWalkthrough(t *testing.T) {
	bees := netlab.Site(t, walkSite("bees"))
	wasps := netlab.Site(t, walkSite("wasps"))
	local := httptest.NewServer(walkSite("local"))
	t.Cleanup(local.Close)
	ctx := browser(t, "")

	// A wait of 400 ms between requests: slow enough to watch. A crawl of
	// 31 pages takes about 12 s, and time left shows from its third second
	// on (taskmgr.Running.Left), so a loaded machine still has several
	// seconds to see it.
	r := startClientWith(t, `{"delay": "400ms", "busy_threshold": 0, "cpu": 0, "api_port": 0}`, app.Options{
		AllowTestNets: true, Version: "0.2.0", Manager: manager.Options{Schedule: manager.ScheduleOptions{Tick: 300 * time.Millisecond}},
	})
	c, info := r.c, r.info
	channel := func(host string) localapi.SoloChannel {
		chs, _ := c.SoloChannels(ctx)
		for _, ch := range chs {
			if ch.ID == host {
				return ch
			}
		}
		return localapi.SoloChannel{}
	}
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	addSeeds := func(urls ...string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#solo-seeds"), strings.Join(urls, "\n")), chromedp.Click(chromedp.CSS("#btn-add-seeds"))); err != nil {
			t.Fatal(err)
		}
	}
	beesHost, waspsHost := strings.TrimPrefix(bees, "http://"), strings.TrimPrefix(wasps, "http://")

	// 1. Start: the dashboard, signed in from the link the client printed.
	signIn(t, ctx, r, "")
	text(t, ctx, "idle", `document.getElementById('state-text').textContent`, func(s string) bool { return strings.HasPrefix(s, "Idle") })
	screenshot(t, ctx, "walk-1-start")

	// 2. A site on this machine is refused, with the reason.
	if err := chromedp.Do(ctx, chromedp.Navigate(info.URL+"/#solo")); err != nil {
		t.Fatal(err)
	}
	addSeeds(local.URL + "/")
	text(t, ctx, "loopback refused", `document.getElementById('seeds-msg').textContent`, func(s string) bool {
		return strings.Contains(s, "127.0.0.1 is not a public address") && strings.Contains(s, "only public web sites")
	})
	screenshot(t, ctx, "walk-2-loopback-refused")

	// 3. Two real sites are added, and their crawl's progress moves.
	addSeeds(bees+"/", wasps+"/")
	text(t, ctx, "sites added", `document.getElementById('seeds-msg').textContent`, func(s string) bool {
		return strings.HasPrefix(s, "Added 2 seeds: new channels "+beesHost+", "+waspsHost)
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(info.URL+"/#dashboard")); err != nil {
		t.Fatal(err)
	}
	pagesOf := func(s string) int { n, _ := strconv.Atoi(strings.Fields(s + " x")[0]); return n }
	rowFor := `Array.from(document.querySelectorAll('#tasks-body tr')).find(tr => tr.cells[0].textContent === '` + beesHost + `')`
	// Pages found and time left are read from one snapshot of the row.
	cells := `(` + rowFor + ` || {cells: [{}, {textContent: ''}, {}, {}, {textContent: ''}]})`
	snapshot := cells + `.cells[1].textContent + '|' + ` + cells + `.cells[4].textContent`
	first := text(t, ctx, "a crawl under way, time left", snapshot, func(s string) bool {
		pages, left, _ := strings.Cut(s, "|")
		return strings.HasSuffix(pages, " of "+strconv.Itoa(walkPages+1)+" found") && pagesOf(pages) >= 2 && strings.HasPrefix(left, "about ")
	})
	text(t, ctx, "progress moving", snapshot, func(s string) bool {
		pages, _, _ := strings.Cut(s, "|")
		return pagesOf(pages) > pagesOf(first)
	})
	screenshot(t, ctx, "walk-3-progress")

	// 4. One site is removed; the other, once crawled, is crawled again now.
	if err := chromedp.Do(ctx, chromedp.Navigate(info.URL+"/#solo")); err != nil {
		t.Fatal(err)
	}
	waspsRow := `#solo-channels tr[data-channel="` + waspsHost + `"]`
	click(waspsRow + ` button.act-remove`)
	click(waspsRow + ` button.act-remove`)
	text(t, ctx, "a site removed", `String(document.querySelector('`+waspsRow+`') === null)`, func(s string) bool { return s == "true" })
	waitFor(t, "the first crawl of "+beesHost, func() bool { ch := channel(beesHost); return ch.Updates == 1 && !ch.Crawling })
	beesRow := `#solo-channels tr[data-channel="` + beesHost + `"]`
	text(t, ctx, "crawled", `document.querySelector('`+beesRow+`').cells[1].textContent`, func(s string) bool { return s == "OK" })
	click(beesRow + ` button.act-crawl`)
	text(t, ctx, "crawling again", `document.querySelector('`+beesRow+`').cells[1].textContent`, func(s string) bool { return s == "Starting" || s == "Crawling" })
	screenshot(t, ctx, "walk-4-channels")
	waitFor(t, "the crawl asked for", func() bool { ch := channel(beesHost); return ch.Updates == 2 && !ch.Crawling })
	if chs, _ := c.SoloChannels(ctx); len(chs) != 1 {
		t.Errorf("channels after removing one: %+v", chs)
	}

	// 5. A word of one crawled page finds it.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#search-q"), "beesp17"), chromedp.Click(chromedp.CSS("#btn-search"))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "found", `document.getElementById('search-msg').textContent + '|' + (document.querySelector('#search-hits .hit-url') || {}).textContent`,
		func(s string) bool { return s == "1 page.|"+bees+"/p17.html" })
	click("#search-hits .hit-title")
	text(t, ctx, "its text", `document.querySelector('#solo-text .text') ? document.querySelector('#solo-text .text').textContent : ''`,
		func(s string) bool { return strings.Contains(s, "is about beesp17") })
	screenshot(t, ctx, "walk-5-search")

	// 6. What happened, one line per change.
	if err := chromedp.Do(ctx, chromedp.Navigate(info.URL+"/#dashboard")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "events", `Array.from(document.querySelectorAll('#events .ev-msg')).map(m => m.textContent).join('|')`,
		func(s string) bool {
			return strings.Contains(s, "Removed the channel ") && strings.Contains(s, " to be crawled now.")
		})
	screenshot(t, ctx, "walk-6-events")
}
