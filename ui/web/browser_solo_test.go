package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// checkOverlayPanel: a solo client's dashboard counts its peers and draws
// its one zone, the whole space, where the "no overlay" note was.
func checkOverlayPanel(t *testing.T, ctx context.Context, r running) {
	t.Helper()
	st, err := r.api.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Overlay == nil || st.Overlay.Mode != "solo" {
		t.Fatalf("overlay %+v, want solo mode", st.Overlay)
	}
	text(t, ctx, "peers figure", `document.getElementById('peers').textContent`, func(s string) bool { return s == fmt.Sprint(st.Overlay.Peers) })
	text(t, ctx, "peers words", `document.getElementById('peers-sub').textContent`, func(s string) bool { return s == "solo: a one-peer overlay" })
	text(t, ctx, "overlay mode", `document.getElementById('zone-mode').textContent`, func(s string) bool { return s == "solo: a one-peer overlay" })
	text(t, ctx, "no-overlay note gone", `String(document.getElementById('zone-note').hidden)`, func(s string) bool { return s == "true" })
	text(t, ctx, "drawing shown", `String(document.getElementById('chart-zone').getBoundingClientRect().width)`, func(s string) bool { return s == "270" })
	// One zone, [0,1]^3, fills the drawn unit square (206 units a side).
	text(t, ctx, "the zone drawn", `Array.from(document.querySelectorAll('#chart-zone rect.zone-own')).map(r => r.getAttribute('width') + 'x' + r.getAttribute('height')).join(' ')`,
		func(s string) bool { return s == "206.0x206.0" })
	text(t, ctx, "its label", `document.querySelector('#chart-zone text.zone-label').textContent`, func(s string) bool { return s == "you" })
	text(t, ctx, "space held", `document.getElementById('zone-share').textContent`, func(s string) bool { return s == "100 % of the space, in 1 zone" })
	text(t, ctx, "no load balancing words in solo mode", `Array.from(document.querySelectorAll('#zone-info .net-only')).map(e => e.hidden).join(' ')`,
		func(s string) bool { return s != "" && !strings.Contains(s, "false") })
	text(t, ctx, "peer ID", `document.getElementById('zone-peer').textContent`, func(s string) bool { return s == st.Overlay.Peer })
	text(t, ctx, "accepted tasks", `document.getElementById('zone-accepted').textContent`, func(s string) bool { return s != "" && s != "0" })
}

// checkSoloPage: the Solo mode page lists the channel the seeds file made,
// shows its pages and a page's stored text, refuses a bad seed with the
// manager's words and adds a good one.
func checkSoloPage(t *testing.T, ctx context.Context, r running) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(r.info.URL+"/#solo")); err != nil {
		t.Fatal(err)
	}
	chs, err := r.c.SoloChannels(ctx)
	if err != nil || len(chs) != 1 {
		t.Fatalf("solo channels %+v, %v", chs, err)
	}
	host := chs[0].ID
	text(t, ctx, "solo page live", `String(!document.getElementById('solo-live').hidden && document.getElementById('solo-other').hidden)`, func(s string) bool { return s == "true" })
	text(t, ctx, "channel listed", `Array.from(document.querySelectorAll('#solo-channels tr .host')).map(h => h.textContent).join(' ')`,
		func(s string) bool { return s == host })
	row := `document.querySelector('#solo-channels tr[data-channel="` + host + `"]')`
	text(t, ctx, "state", row+`.cells[1].textContent`, func(s string) bool { return s == "OK" || s == "Crawling" })
	text(t, ctx, "next crawl", row+`.cells[2].textContent`, func(s string) bool { return strings.HasPrefix(s, "in ") || s == "crawling now" || s == "due now" })
	text(t, ctx, "interval", row+`.cells[2].title`, func(s string) bool { return strings.HasPrefix(s, "Recrawled every ") })
	text(t, ctx, "last crawl", row+`.cells[3].textContent`, func(s string) bool { return strings.Contains(s, " ago · ") && strings.HasSuffix(s, " pages") })
	text(t, ctx, "pages", row+`.cells[4].textContent`, func(s string) bool { return s != "0" && s != "" })
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#solo-channels tr[data-channel="`+host+`"] button.act-browse`))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "pages listed", `Array.from(document.querySelectorAll('#solo-pages .page-link .path')).map(p => p.textContent).join(' ')`,
		func(s string) bool { return strings.Contains(s, "/site0/a.html") })
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#solo-pages .page-link[title$="/site0/a.html"]`))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "stored text", `document.querySelector('#solo-text .text') ? document.querySelector('#solo-text .text').textContent : ""`,
		func(s string) bool { return strings.Contains(s, "Words about /site0/a.html for the index") })
	text(t, ctx, "its title", `document.querySelector('#solo-text h3').textContent`, func(s string) bool { return s == "/site0/a.html" })
	screenshot(t, ctx, "solo")

	// A phrase from one crawled page finds it, the match marked; the hit
	// opens its text.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#search-q"), `"about /site0/b.html"`), chromedp.Click(chromedp.CSS("#btn-search"))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "search answer", `document.getElementById('search-msg').textContent`, func(s string) bool { return s == "1 page." })
	text(t, ctx, "hit", `document.querySelector('#search-hits .hit-title').textContent + '|' + Array.from(document.querySelectorAll('#search-hits mark')).map(m => m.textContent).join(' ')`,
		func(s string) bool { return strings.HasPrefix(s, "/site0/b.html|") && strings.Contains(s, "site0") })
	screenshot(t, ctx, "solo-search")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#search-hits .hit-title"))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "hit's text", `document.querySelector('#solo-text h3').textContent`, func(s string) bool { return s == "/site0/b.html" })

	// A bad seed: the manager's parser says why, nothing is added.
	addSeeds := func(urls string) {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.CSS("#solo-seeds"), urls),
			chromedp.Click(chromedp.CSS("#btn-add-seeds")),
		)
		if err != nil {
			t.Fatal(err)
		}
	}
	other := smallSite(t)
	addSeeds(other.URL + "/x/\nftp://files.example/")
	text(t, ctx, "seed refused", `document.getElementById('seeds-msg').textContent`, func(s string) bool {
		return strings.Contains(s, "nothing added") && strings.Contains(s, "scheme must be http or https")
	})
	if chs, _ := r.c.SoloChannels(ctx); len(chs) != 1 {
		t.Errorf("a refused request added channels: %+v", chs)
	}
	screenshot(t, ctx, "solo-refused")
	addSeeds(other.URL + "/x/")
	otherHost := strings.TrimPrefix(other.URL, "http://")
	text(t, ctx, "seed added", `document.getElementById('seeds-msg').textContent`, func(s string) bool {
		return strings.HasPrefix(s, "Added 1 seed: new channel "+otherHost)
	})
	text(t, ctx, "new channel listed", `String(document.querySelectorAll('#solo-channels tr[data-channel]').length)`, func(s string) bool { return s == "2" })
	if chs, _ := r.c.SoloChannels(ctx); len(chs) != 2 || chs[1].ID != otherHost {
		t.Errorf("channels after adding a seed: %+v", chs)
	}
	checkChannelActions(t, ctx, r, otherHost)
	checkAddWhilePaused(t, ctx, r)
}

// checkAddWhilePaused: a site added while the client is paused is taken,
// the form says why no crawl starts, and its row says Paused with the
// client's reason rather than Crawling.
func checkAddWhilePaused(t *testing.T, ctx context.Context, r running) {
	t.Helper()
	if err := r.c.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client to pause", func() bool {
		st, err := r.api.Status(ctx)
		return err == nil && st.State == "paused"
	})
	srv := smallSite(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#solo-seeds"), srv.URL+"/p/"), chromedp.Click(chromedp.CSS("#btn-add-seeds"))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "added while paused", `document.getElementById('seeds-msg').textContent`, func(s string) bool {
		return strings.HasPrefix(s, "Added 1 seed: new channel "+host) && strings.HasSuffix(s, "Hivecrawl is paused (Paused by you): the crawl starts when crawling resumes.")
	})
	row := `document.querySelector('#solo-channels tr[data-channel="` + host + `"]')`
	text(t, ctx, "its row paused", row+`.cells[1].textContent + '|' + `+row+`.querySelector('.why').textContent`, func(s string) bool {
		return strings.HasPrefix(s, "Paused|Hivecrawl is paused (Paused by you)")
	})
	screenshot(t, ctx, "solo-added-while-paused")
	if err := r.c.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.ChannelAction(ctx, host, localapi.ChannelRemove); err != nil {
		t.Fatal(err)
	}
}

// checkChannelActions: a private seed is refused with the reason, and a
// channel is paused, crawled now, set to its seeds alone, resumed and
// removed from its row's buttons.
func checkChannelActions(t *testing.T, ctx context.Context, r running, host string) {
	t.Helper()
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	soloChannel := func() (localapi.SoloChannel, bool) {
		chs, err := r.c.SoloChannels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chs {
			if ch.ID == host {
				return ch, true
			}
		}
		return localapi.SoloChannel{}, false
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#solo-seeds"), "http://10.0.0.1/"), chromedp.Click(chromedp.CSS("#btn-add-seeds"))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "private seed refused", `document.getElementById('seeds-msg').textContent`, func(s string) bool {
		return strings.Contains(s, "10.0.0.1 is not a public address") && strings.Contains(s, "only public web sites")
	})

	rowSel := `#solo-channels tr[data-channel="` + host + `"]`
	row := `document.querySelector('` + rowSel + `')`
	click(rowSel + ` button.act-pause`)
	text(t, ctx, "paused", row+`.cells[1].textContent + '|' + `+row+`.querySelector('.why').textContent + '|' + `+row+`.querySelector('.act-pause').textContent`,
		func(s string) bool {
			return strings.HasPrefix(s, "Paused|paused by you") && strings.HasSuffix(s, "|Resume")
		})
	screenshot(t, ctx, "solo-paused")

	click(rowSel + ` button.act-settings`)
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#chset-depth"), "0"), chromedp.Click(chromedp.CSS(`#chset-form button[type="submit"]`))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "settings saved", `document.getElementById('chset-msg').textContent`, func(s string) bool { return strings.HasPrefix(s, "Saved") })
	screenshot(t, ctx, "solo-settings")
	if ch, _ := soloChannel(); ch.MaxDepth != 0 || ch.OtherHosts {
		t.Fatalf("after saving the settings: %+v", ch)
	}

	before, _ := soloChannel()
	click(rowSel + ` button.act-crawl`)
	text(t, ctx, "crawl asked for", `document.getElementById('channels-msg').textContent`, func(s string) bool { return strings.Contains(s, "will be crawled within seconds") })
	deadline := time.Now().Add(30 * time.Second)
	for {
		ch, _ := soloChannel()
		if ch.Updates > before.Updates && !ch.Crawling {
			if ch.State != localapi.StatePaused || ch.Last == nil || ch.Last.Pages != 1 {
				t.Fatalf("after crawl now on a paused channel at depth 0: %+v (last %+v)", ch, ch.Last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("crawl now brought no result in 30 s: %+v", ch)
		}
		time.Sleep(50 * time.Millisecond)
	}
	click(rowSel + ` button.act-pause`)
	text(t, ctx, "resumed", row+`.cells[1].textContent`, func(s string) bool { return s == "OK" || s == "Crawling" })

	click(rowSel + ` button.act-remove`)
	text(t, ctx, "remove asks again", row+`.querySelector('.act-remove').textContent`, func(s string) bool { return s == "Confirm remove" })
	click(rowSel + ` button.act-remove`)
	text(t, ctx, "row gone", `String(document.querySelector('`+rowSel+`') === null)`, func(s string) bool { return s == "true" })
	if _, listed := soloChannel(); listed {
		t.Fatal("the removed channel is still listed by the API")
	}
}

// TestBrowserLocalModeHasNoOverlay: in local mode the dashboard keeps its
// "No overlay yet" note and the Solo mode page says how to leave it.
func TestBrowserLocalModeHasNoOverlay(t *testing.T) {
	ctx := browser(t, "")
	r := startClientMode(t, app.ModeLocal)
	signIn(t, ctx, r, "")
	text(t, ctx, "live connection", `document.getElementById('conn').textContent`, func(s string) bool { return s == "Live" })
	text(t, ctx, "peers words", `document.getElementById('peers-sub').textContent`, func(s string) bool { return s == "no overlay: local mode" })
	text(t, ctx, "no-overlay note", `document.getElementById('zone-note').hidden ? "" : document.getElementById('zone-note').textContent`,
		func(s string) bool { return strings.HasPrefix(s, "No overlay yet.") })
	text(t, ctx, "no drawing", `String(document.getElementById('chart-zone').getBoundingClientRect().width)`, func(s string) bool { return s == "0" })
	if err := chromedp.Do(ctx, chromedp.Navigate(r.info.URL+"/#solo")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "how to leave local mode", `document.getElementById('solo-other').hidden ? "" : document.getElementById('solo-other').textContent`,
		func(s string) bool { return strings.Contains(s, "Start it without --local") })
	text(t, ctx, "no seed form", `String(document.getElementById('solo-live').hidden)`, func(s string) bool { return s == "true" })
	screenshot(t, ctx, "solo-local")
}
