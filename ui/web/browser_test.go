package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hivecrawl/hivecrawl/app"
	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
	"github.com/hivecrawl/hivecrawl/ui/web"
)

// chromium returns the browser's path. Outside CI a missing browser skips
// the test; in CI it fails it, since scripts/test.sh installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (scripts/test.sh installs Debian's chromium package)")
	}
	t.Skip("chromium is not installed: apt-get install chromium (make test does it)")
	return ""
}

// browser starts a fresh headless Chromium. hostRules map test host names
// to loopback ("MAP evil.test 127.0.0.1").
func browser(t *testing.T, hostRules string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	if hostRules != "" {
		opts = append(opts, chromedp.Flag("host-resolver-rules", hostRules))
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// calmSampler reports a quiet machine, so the governor never pauses for
// other programs' load on a busy test machine.
type calmSampler struct{}

func (calmSampler) Sample(context.Context) (governor.Reading, error) {
	return governor.Reading{TotalCPU: 6, ProcessCPU: 2, RSS: 48 << 20}, nil
}

// smallSite serves a few small linked pages.
func smallSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>Words about %s for the index, and some more.</p>", r.URL.Path, r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			fmt.Fprint(w, `<a href="a.html">a</a> <a href="b.html">b</a> <a href="c/">c</a>`)
		}
		fmt.Fprint(w, "</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// running is a real client crawling a local site.
type running struct {
	c    *app.Client
	info loopback.Info
	api  *localapi.Client
}

func startClient(t *testing.T) running { return startClientMode(t, "") }

// startClientMode starts a client in mode ("" = solo, as without a
// network profile) with a seeds file of three sites on one host.
func startClientMode(t *testing.T, mode app.Mode) running {
	t.Helper()
	srv := smallSite(t)
	var seeds strings.Builder
	for i := range 3 {
		fmt.Fprintf(&seeds, "%s/site%d/\n", srv.URL, i)
	}
	seedFile := filepath.Join(t.TempDir(), "seeds.txt")
	if err := os.WriteFile(seedFile, []byte(seeds.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// Solo mode's tasks use the configured politeness wait: keep it short.
	return startClientWith(t, `{"delay": "20ms"}`, app.Options{
		Mode: mode, Seeds: seedFile, AllowLoopback: true,
		SeedTasks: app.SeedTasks{Delay: 20 * time.Millisecond, MaxDepth: 3, MaxPages: 20, Interval: time.Hour},
		Version:   "test",
	})
}

// startClientWith starts a client with opts in a new home whose
// configuration file is config, on a calm machine, quiet; it stops when
// the test ends.
func startClientWith(t *testing.T, config string, opts app.Options) running {
	t.Helper()
	opts.Home = t.TempDir()
	if err := os.MkdirAll(filepath.Join(opts.Home, "config"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(opts.Home, "config", "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	opts.Sampler, opts.Grace, opts.Logger = calmSampler{}, time.Second, slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := app.New(ctx, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := c.Serve(ctx); err != nil {
			t.Errorf("client: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	var info loopback.Info
	waitFor(t, "the client's api.json", func() bool {
		info, err = loopback.ReadInfo(c.Dirs().APIFile())
		return err == nil
	})
	return running{c: c, info: info, api: localapi.NewClient(info)}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shots is where screenshots go: $HIVECRAWL_SCREENSHOTS, or the test's
// artifact directory (kept with go test -artifacts).
func shots(t *testing.T) string {
	if d := os.Getenv("HIVECRAWL_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.ArtifactDir()
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(shots(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// text polls a JavaScript expression until it yields a string for which ok
// holds, and returns it.
func text(t *testing.T, ctx context.Context, what, expr string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: evaluate %s: %v", what, expr, err)
		}
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s is %q", what, expr, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func signIn(t *testing.T, ctx context.Context, r running, next string) {
	t.Helper()
	u, err := web.LoginURL(ctx, r.info, next)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	text(t, ctx, "sign-in", `document.body.dataset.signedIn || ""`, func(s string) bool { return s == "yes" })
}

func TestBrowserDashboardShowsLiveData(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	// Wait for the crawl to deliver, so there is something to show.
	var st localapi.Status
	waitFor(t, "pages in the ledger", func() bool {
		var err error
		st, err = r.api.Status(ctx)
		return err == nil && st.Pages.Total >= 3 && len(st.Tasks.Running) == 0 && st.Tasks.Queued == 0
	})
	signIn(t, ctx, r, "")
	// The page shows what the API says, whatever it is by then.
	want := func(s string) bool {
		st, err := r.api.Status(ctx)
		return err == nil && s == fmt.Sprint(st.Pages.Total)
	}
	text(t, ctx, "pages total", `document.getElementById('pages-total').textContent`, want)
	text(t, ctx, "pages today", `document.getElementById('pages-today').textContent`, want)
	text(t, ctx, "state", `document.getElementById('state-text').textContent`, func(s string) bool { return s == "Idle: waiting for tasks" })
	text(t, ctx, "live connection", `document.getElementById('conn').textContent`, func(s string) bool { return s == "Live" })
	// Two ticks make a line on each chart; the memory chart shows the
	// sampler's 48 MiB.
	text(t, ctx, "charts", `String(document.querySelectorAll('#chart-down polyline.line, #chart-cpu polyline.line, #chart-mem polyline.line').length)`,
		func(s string) bool { return s == "4" })
	text(t, ctx, "memory reading", `document.getElementById('now-mem').textContent`, func(s string) bool { return strings.HasPrefix(s, "50.3 MB") })
	// A cap far above the readings is named, not drawn to scale: the
	// readings keep an axis of their own size.
	if _, err := r.api.SetConfig(ctx, localapi.Change{Key: "memory", Value: "1TB"}); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "memory chart's scale", `document.querySelector('#chart-mem').parentElement.querySelector('.cap-text').textContent + '|' + Array.from(document.querySelectorAll('#chart-mem text.axis-label')).map(e => e.textContent).join(' ')`,
		func(s string) bool {
			return strings.HasPrefix(s, "cap 1.00 TB, above the scale|") && strings.Contains(s, "100 MB") && !strings.Contains(s, "TB ")
		})
	if _, err := r.api.SetConfig(ctx, localapi.Change{Key: "memory", Value: "0"}); err != nil {
		t.Fatal(err)
	}
	// Paused by its own rule (the day's quota spent), it offers to stay
	// paused, not to pause.
	if _, err := r.api.SetConfig(ctx, localapi.Change{Key: "daily_quota", Value: "1KB"}); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "auto-paused buttons", `document.getElementById('state-text').textContent + '|' + document.getElementById('btn-pause').textContent + '|' + document.getElementById('btn-resume').hidden`,
		func(s string) bool { return s == "Paused|Stay paused|true" })
	if _, err := r.api.SetConfig(ctx, localapi.Change{Key: "daily_quota", Value: "0"}); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "running again", `document.getElementById('btn-pause').textContent`, func(s string) bool { return s == "Pause" })
	text(t, ctx, "credit bars", `String(document.querySelectorAll('#chart-credits rect').length)`, func(s string) bool { return s != "0" })
	checkOverlayPanel(t, ctx, r)
	// The event log shows the tasks done, with where its file is.
	text(t, ctx, "events", `Array.from(document.querySelectorAll('#events .ev-msg')).map(m => m.textContent).join('|')`,
		func(s string) bool { return strings.Contains(s, "Finished crawling") })
	text(t, ctx, "log file", `document.getElementById('events-file').textContent`, func(s string) bool { return strings.HasSuffix(s, "hivecrawl.log.") })
	screenshot(t, ctx, "dashboard")

	// A pause made elsewhere (the CLI) reaches the open page.
	if _, err := r.api.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "paused state", `document.getElementById('state-text').textContent`, func(s string) bool { return s == "Paused" })
	text(t, ctx, "pause reason", `document.getElementById('reasons').textContent`, func(s string) bool { return strings.Contains(s, "Paused") })
	// And Resume on the page, pressed from the keyboard, reaches the client.
	text(t, ctx, "resume offered", `String(!document.getElementById('btn-resume').hidden && document.getElementById('btn-pause').hidden)`,
		func(s string) bool { return s == "true" })
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#btn-resume")), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client to resume", func() bool {
		st, err := r.api.Status(ctx)
		return err == nil && st.State != "paused"
	})
	// "Finish, then pause" on the page: the running crawls end, then the
	// client pauses, and the page offers Resume.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#btn-finish"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client to finish, then pause", func() bool {
		st, err := r.api.Status(ctx)
		return err == nil && st.State == "paused" && !st.Finishing
	})
	text(t, ctx, "resume offered after finishing", `String(!document.getElementById('btn-resume').hidden && document.getElementById('btn-finish').hidden)`,
		func(s string) bool { return s == "true" })
	if _, err := r.api.Resume(ctx); err != nil {
		t.Fatal(err)
	}

	// Opened as the first page of a fresh load, Credits shows its totals.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(r.info.URL+"/#credits")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "credit totals", `[document.getElementById('c-confirmed').textContent, document.getElementById('c-rac').textContent].join('|')`,
		func(s string) bool { return !strings.Contains(s, "–") })
	text(t, ctx, "receipts", `String(document.querySelectorAll('#receipts-body tr td.num').length > 0)`, func(s string) bool { return s == "true" })
	screenshot(t, ctx, "credits")
	checkSoloPage(t, ctx, r)
	// Readable in a small window: nothing runs off the side of each page.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(380, 700)); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"dashboard", "settings", "credits", "solo"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(r.info.URL+"/#"+page)); err != nil {
			t.Fatal(err)
		}
		// When something runs off, the message names the first elements past the edge.
		text(t, ctx, "small window, "+page, `document.getElementById('page-`+page+`').hidden ? "" : document.documentElement.scrollWidth <= document.documentElement.clientWidth ? "true" :
			"too wide:" + Array.from(document.querySelectorAll('#page-`+page+` *')).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth).map(e => ' ' + e.tagName + '#' + e.id + '.' + e.className).slice(0, 6).join('')`,
			func(s string) bool { return s == "true" })
		if page == "solo" {
			screenshot(t, ctx, "solo-small")
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(r.info.URL+"/#dashboard")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "small dashboard live", `document.getElementById('conn').textContent`, func(s string) bool { return s == "Live" })
	screenshot(t, ctx, "dashboard-small")
}

func TestBrowserSettingsChangeTheGovernor(t *testing.T) {
	ctx := browser(t, "")
	r := startClient(t)
	signIn(t, ctx, r, "settings")
	text(t, ctx, "settings filled", `document.getElementById('s-threads').value`, func(s string) bool { return s == "3" })

	// Typed from the keyboard: select the field, type, Tab away.
	type change struct{ sel, typed string }
	set := func(c change) {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.Focus(chromedp.CSS(c.sel)),
			chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Evaluate[bool](`(document.activeElement.select(), true)`)(ctx, tg)
				return err
			}),
			chromedp.SendKeys(chromedp.CSS(c.sel), c.typed),
			chromedp.KeyEvent(kb.Tab),
		)
		if err != nil {
			t.Fatal(err)
		}
	}
	msg := func(sel string) string {
		return `document.querySelector('` + sel + `').parentElement.querySelector('.msg').textContent`
	}

	set(change{"#s-download", "150KB/s"})
	text(t, ctx, "download saved", msg("#s-download"), func(s string) bool { return s == "Saved" })
	st, err := r.api.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Download.Cap != 150_000 {
		t.Errorf("governor's download cap = %d, want 150000", st.Download.Cap)
	}
	if got := r.c.Settings().Get().Download; got != 150_000 {
		t.Errorf("saved download cap = %d, want 150000", got)
	}

	// A bad value shows the API's message and changes nothing.
	set(change{"#s-download", "lots"})
	text(t, ctx, "validation message", msg("#s-download"), func(s string) bool { return strings.Contains(s, "is not a size") })
	text(t, ctx, "field marked invalid", `document.getElementById('s-download').getAttribute('aria-invalid')`, func(s string) bool { return s == "true" })
	if st, _ := r.api.Status(ctx); st.Download.Cap != 150_000 {
		t.Errorf("download cap after a bad value = %d, want 150000", st.Download.Cap)
	}
	set(change{"#s-threads", "70"})
	text(t, ctx, "range message", msg("#s-threads"), func(s string) bool { return strings.Contains(s, "threads must be between 1 and 64") })
	// The refused text stays for the contributor to fix, and fixing it works.
	text(t, ctx, "refused text kept", `document.getElementById('s-download').value`, func(s string) bool { return s == "lots" })
	set(change{"#s-download", "200KB/s"})
	text(t, ctx, "fixed value saved", msg("#s-download"), func(s string) bool { return s == "Saved" })
	text(t, ctx, "field valid again", `document.getElementById('s-download').getAttribute('aria-invalid')`, func(s string) bool { return s == "false" })
	if st, _ := r.api.Status(ctx); st.Download.Cap != 200_000 {
		t.Errorf("download cap after the fix = %d, want 200000", st.Download.Cap)
	}

	// The schedule editor: one window on weekdays with its own cap.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#btn-add-window")),
		chromedp.Click(chromedp.CSS(`#schedule-rows .window input.day[value="mon"]`)),
		chromedp.Click(chromedp.CSS(`#schedule-rows .window input.day[value="fri"]`)),
		chromedp.SetValue(chromedp.CSS(`#schedule-rows .window input.start`), "19:00"),
		chromedp.SetValue(chromedp.CSS(`#schedule-rows .window input.end`), "07:30"),
		chromedp.SetValue(chromedp.CSS(`#schedule-rows .window input.down`), "1MB/s"),
		chromedp.Click(chromedp.CSS("#btn-save-schedule")),
	)
	if err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "schedule saved", `document.getElementById('schedule-msg').textContent`, func(s string) bool { return s != "" })
	sched := r.c.Settings().Get().Schedule
	if len(sched.Windows) != 1 || len(sched.Windows[0].Days) != 2 || sched.Windows[0].Start.String() != "19:00" ||
		sched.Windows[0].End.String() != "07:30" || sched.Windows[0].Download != 1_000_000 {
		t.Errorf("schedule = %+v", sched)
	}
	// Notifications switch at once.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#s-n-daily"))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "switch saved", msg("#s-n-daily"), func(s string) bool { return s == "Saved" })
	if !r.c.Settings().Get().Notifications.DailySummary {
		t.Error("daily summary switch did not reach the settings")
	}
	screenshot(t, ctx, "settings")

	// A preset sets every limit it names at once, and the form shows them;
	// a limit changed after makes them the contributor's own.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#s-preset-quiet"))); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "preset saved", `document.getElementById('s-preset-full').closest('fieldset').querySelector('.msg').textContent`, func(s string) bool { return s == "Saved" })
	if got := r.c.Settings().Get(); got.Preset() != config.PresetQuiet || got.Threads != 1 {
		t.Errorf("after clicking Quiet: preset %q, threads %d", got.Preset(), got.Threads)
	}
	text(t, ctx, "form shows the preset's limits", `document.getElementById('s-threads').value + ' ' + document.getElementById('s-cpu').value`, func(s string) bool { return s == "1 10" })
	set(change{"#s-threads", "2"})
	text(t, ctx, "threads saved", msg("#s-threads"), func(s string) bool { return s == "Saved" })
	text(t, ctx, "limits of one's own", `[document.getElementById('preset-custom').hidden, document.querySelector('input[name=preset]:checked') === null].join()`,
		func(s string) bool { return s == "false,true" })
	if got := r.c.Settings().Get().Preset(); got != config.PresetCustom {
		t.Errorf("after threads=2: preset %q, want custom", got)
	}
}

func TestBrowserRefusesOtherSites(t *testing.T) {
	ctx := browser(t, "MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1")
	r := startClient(t)
	signIn(t, ctx, r, "")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(r.info.URL, "http://"))

	// DNS rebinding: a foreign name that resolves to 127.0.0.1 is refused.
	if err := chromedp.Do(ctx, chromedp.Navigate("http://rebind.test:"+port+"/api/status")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "foreign Host", `document.body.innerText`, func(s string) bool { return strings.Contains(s, "host not allowed") })
	if err := chromedp.Do(ctx, chromedp.Navigate("http://rebind.test:"+port+"/")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "foreign Host page", `document.body.innerText`, func(s string) bool { return strings.Contains(s, "host not allowed") })

	// Another site posts a form to the API and tries to read the token.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch req.URL.Path {
		case "/form":
			fmt.Fprintf(w, `<form id="f" method="POST" action="%s/api/pause" enctype="text/plain"><input name="x" value="y"></form><script src="/submit.js"></script>`, r.info.URL)
		case "/submit.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.getElementById('f').submit();`)
		case "/read":
			fmt.Fprint(w, `<p id="out">waiting</p><script src="/read.js"></script>`)
		case "/read.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, `fetch(%q, {credentials: 'include'}).then(r => r.text()).then(t => { document.getElementById('out').textContent = 'read: ' + t; },
				e => { document.getElementById('out').textContent = 'blocked'; });
				fetch(%q, {method: 'POST', mode: 'no-cors', credentials: 'include'});`, r.info.URL+"/ui/session", r.info.URL+"/api/pause")
		}
	}))
	defer evil.Close()
	_, evilPort, _ := net.SplitHostPort(strings.TrimPrefix(evil.URL, "http://"))
	if err := chromedp.Do(ctx, chromedp.Navigate("http://evil.test:"+evilPort+"/form")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "cross-site POST", `document.body.innerText`, func(s string) bool { return strings.Contains(s, "missing or wrong API token") })
	if err := chromedp.Do(ctx, chromedp.Navigate("http://evil.test:"+evilPort+"/read")); err != nil {
		t.Fatal(err)
	}
	got := text(t, ctx, "cross-site read", `document.getElementById('out').textContent`, func(s string) bool { return s != "waiting" })
	if got != "blocked" || strings.Contains(got, r.info.Token) {
		t.Errorf("another site read the session answer: %q", got)
	}
	st, err := r.api.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.State == "paused" || r.c.Settings().Get().Paused {
		t.Error("a cross-site request paused the client")
	}
	// The signed-in page itself still works: the cookie was not spent.
	if err := chromedp.Do(ctx, chromedp.Navigate(r.info.URL+"/")); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "own page signed in", `document.body.dataset.signedIn || ""`, func(s string) bool { return s == "yes" })
}
