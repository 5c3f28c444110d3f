package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Credit totals that sum to nothing can be a hair below zero (the ledger
// adds and takes away floats); the page shows 0, never −0.
func TestBrowserCreditsNeverNegativeZero(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	signIn(t, ctx, r, "")
	got := text(t, ctx, "formatted credits", `[-1e-14, -0.04, 0, 0.04, 0.06, 12.34, -2.5].map(v => window.HC.fmtCredits(v)).join(' ')`,
		func(s string) bool { return s != "" })
	if want := "0 0 0 0 0.1 12.3 -2.5"; got != want {
		t.Errorf("credits formatted as %q, want %q", got, want)
	}
	pending := text(t, ctx, "pending credits", `document.getElementById('credits-pending').textContent`,
		func(s string) bool { return s != "–" })
	if strings.Contains(pending, "-") || strings.Contains(pending, "−") {
		t.Errorf("pending credits shown as %q", pending)
	}
}

// chartLabelsFit is a script that lists the dashboard's chart labels that
// leave their drawing, overlap another label or are drawn smaller than
// 10 px on the screen; "ok" when there are none.
const chartLabelsFit = `(() => {
	const bad = [];
	for (const svg of document.querySelectorAll('svg.chart')) {
		const vb = svg.viewBox.baseVal;
		const ts = Array.from(svg.querySelectorAll('text'));
		const bs = ts.map(t => t.getBBox());
		ts.forEach((t, i) => {
			const b = bs[i], name = svg.id + ' "' + t.textContent + '"';
			if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5) {
				bad.push(name + ' leaves the drawing');
			}
			for (let j = 0; j < i; j++) {
				const c = bs[j];
				if (b.x < c.x + c.width && c.x < b.x + b.width && b.y < c.y + c.height && c.y < b.y + b.height) bad.push(name + ' overlaps "' + ts[j].textContent + '"');
			}
			if (t.getBoundingClientRect().height < 10) bad.push(name + ' is ' + t.getBoundingClientRect().height.toFixed(1) + ' px high');
		});
	}
	return bad.join('; ') || 'ok';
})()`

// The charts' labels stay inside their drawings, apart, and at a readable
// size, in a wide window and in a phone-sized one.
func TestBrowserChartLabelsFit(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	waitFor(t, "pages in the ledger", func() bool {
		st, err := r.api.Status(ctx)
		return err == nil && st.Pages.Total >= 3
	})
	signIn(t, ctx, r, "")
	// A cap far above the readings is named in the legend.
	if _, err := r.api.SetConfig(ctx, localapi.Change{Key: "cpu", Value: "90"}); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"wide", 1280, 1000}, {"small", 380, 700}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h)); err != nil {
			t.Fatal(err)
		}
		text(t, ctx, size.name+" charts drawn", `String(document.querySelectorAll('#chart-credits rect').length > 0 && document.querySelectorAll('#chart-mem polyline.line').length > 0)`,
			func(s string) bool { return s == "true" })
		text(t, ctx, size.name+" chart labels", chartLabelsFit, func(s string) bool { return s == "ok" })
		// Drawn for the width they have, so text keeps its size.
		text(t, ctx, size.name+" chart width", `String(Math.abs(document.getElementById('chart-credits').viewBox.baseVal.width - document.getElementById('chart-credits').getBoundingClientRect().width) < 2)`,
			func(s string) bool { return s == "true" })
		screenshot(t, ctx, "charts-"+size.name)
	}
}

// The memory chart's figure says what it is: memory in use, and whether a
// cap is set; the legend names a cap only when there is one.
func TestBrowserMemoryLabel(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	signIn(t, ctx, r, "")
	// The calm sampler reads 48 MiB.
	text(t, ctx, "memory without a cap", `document.getElementById('now-mem').textContent + '|' + document.querySelector('#chart-mem').parentElement.querySelector('.cap-item').hidden`,
		func(s string) bool { return s == "50.3 MB in use · no cap set|true" })
	if _, err := r.api.SetConfig(ctx, localapi.Change{Key: "memory", Value: "200MB"}); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "memory with a cap", `document.getElementById('now-mem').textContent + '|' + document.querySelector('#chart-mem').parentElement.querySelector('.cap-item').hidden`,
		func(s string) bool { return s == "50.3 MB in use of a 200 MB cap|false" })
}

// holdEvents makes the page's live updates wait until the test calls
// window.__releaseEvents(): the page as it is before any data arrives.
const holdEvents = `(() => {
	const Real = window.EventSource;
	let go;
	const ready = new Promise(r => { go = r; });
	window.__releaseEvents = () => go();
	window.EventSource = class {
		constructor(url) {
			this.listeners = [];
			ready.then(() => {
				const es = new Real(url);
				es.onopen = e => this.onopen && this.onopen(e);
				es.onerror = e => this.onerror && this.onerror(e);
				for (const [type, fn] of this.listeners) es.addEventListener(type, fn);
			});
		}
		addEventListener(type, fn) { this.listeners.push([type, fn]); }
	};
})()`

// Before its first status the page waits for the client: it says nothing
// about the mode (a solo client used to read "local mode" until then).
func TestBrowserSoloModeNotLocalBeforeData(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: holdEvents}); err != nil {
		t.Fatal(err)
	}
	signIn(t, ctx, r, "")
	const shown = `['state-text', 'peers-sub', 'zone-note', 'solo-intro'].map(id => document.getElementById(id).hidden ? '' : document.getElementById(id).textContent).join('|')`
	before := text(t, ctx, "the page before data", shown, func(s string) bool { return s != "" })
	if strings.Contains(before, "local") {
		t.Errorf("before any data the page says %q", before)
	}
	if !strings.Contains(before, "Waiting for the client") {
		t.Errorf("before any data the page says %q, not that it waits", before)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`window.__releaseEvents()`)); err != nil {
		t.Fatal(err)
	}
	after := text(t, ctx, "the page with data", shown, func(s string) bool { return strings.Contains(s, "solo: a one-peer overlay") })
	if strings.Contains(after, "local") || strings.Contains(after, "Waiting") {
		t.Errorf("in solo mode the page says %q", after)
	}
}

// A client without a desktop says on the Settings page that start at
// login has no effect there, and what starts it with the computer instead.
func TestBrowserStartAtLoginHeadless(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	signIn(t, ctx, r, "settings")
	text(t, ctx, "start-at-login note", `document.getElementById('start-note').hidden ? "" : String(document.getElementById('s-start').disabled) + '|' + document.getElementById('start-note').textContent`,
		func(s string) bool {
			return strings.HasPrefix(s, "true|No effect here: this client runs without a desktop") && strings.Contains(s, "systemctl --user enable --now hivecrawl")
		})
	screenshot(t, ctx, "settings-headless")
}

// The Events card reads as sentences with their time; a record's keys and
// values show only when its details are opened.
func TestBrowserEventsReadable(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	waitFor(t, "pages in the ledger", func() bool {
		st, err := r.api.Status(ctx)
		return err == nil && st.Pages.Total >= 3 && len(st.Tasks.Running) == 0
	})
	signIn(t, ctx, r, "")
	shown := text(t, ctx, "events", `document.getElementById('events').innerText`,
		func(s string) bool { return strings.Contains(s, "Finished crawling 127.0.0.1:") })
	for _, want := range []string{"Started crawling 127.0.0.1:", "Delivered what was crawled of 127.0.0.1:"} {
		if !strings.Contains(shown, want) {
			t.Errorf("events lack %q:\n%s", want, shown)
		}
	}
	if m := regexp.MustCompile(`\w=\S`).FindString(shown); m != "" {
		t.Errorf("events show key=value text (%q):\n%s", m, shown)
	}
	if !regexp.MustCompile(`\d{1,2}:\d{2}:\d{2}`).MatchString(shown) {
		t.Errorf("events without their time:\n%s", shown)
	}
	// Details on demand: the record's fields, as the log file has them.
	details := text(t, ctx, "a task's details", `(() => {
		const li = Array.from(document.querySelectorAll('#events li')).find(li => li.querySelector('.ev-msg').textContent.startsWith('Finished crawling'));
		const d = li.querySelector('details');
		d.open = true;
		return d.querySelector('.ev-attrs').innerText;
	})()`, func(s string) bool { return s != "" })
	for _, want := range []string{"Task done", "pages", "elapsed", "channel"} {
		if !strings.Contains(details, want) {
			t.Errorf("details lack %q:\n%s", want, details)
		}
	}
	screenshot(t, ctx, "events")
}

// TestBrowserSignedOutShowsNothing: a browser that was never signed in
// gets the page's files but none of the client's data, and the page says
// how to sign in; signed in, the same page shows the event log.
func TestBrowserSignedOutShowsNothing(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(r.info.URL+"/#dashboard")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "signed out", `document.body.dataset.signedIn || ""`, func(s string) bool { return s == "no" })
	text(t, ctx, "the sign-in banner", `document.getElementById('readonly').hidden ? "" : document.getElementById('readonly').innerText`,
		func(s string) bool {
			return strings.Contains(s, "hivecrawl open") && strings.Contains(s, "shows nothing")
		})
	text(t, ctx, "the event log refused", `document.getElementById('events-file').innerText`,
		func(s string) bool {
			return strings.Contains(s, "Cannot read the event log") && !strings.Contains(s, r.c.Dirs().Data)
		})
	signIn(t, ctx, r, "")
	text(t, ctx, "the event log signed in", `document.getElementById('events-file').innerText`,
		func(s string) bool { return strings.Contains(s, "Also written to") })
}
