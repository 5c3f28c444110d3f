package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/testkit/webbotauth"
)

// ownerWeb serves name-based sites on one loopback address, as shared
// hosting does, and records every request as the sites received it.
// Its sites:
//
//   - plain-N.test: an index and five pages;
//   - nosearch.test: robots.txt says Content-Signal: search=no;
//   - mixed.test: a page, a page sent with X-Robots-Tag: noindex and a
//     page answering 402 Payment Required;
//   - optout.test: optOutPages pages, each answered 50 ms late, a crawl
//     long enough to be opted out of while it runs.
type ownerWeb struct {
	rec   webbotauth.Recorder
	srv   *httptest.Server
	names []string
}

func newOwnerWeb(t *testing.T, plain int) *ownerWeb {
	t.Helper()
	w := &ownerWeb{}
	for i := range plain {
		w.names = append(w.names, fmt.Sprintf("plain-%d.test", i))
	}
	w.names = append(w.names, "nosearch.test", "mixed.test", "optout.test")
	w.rec.Next = http.HandlerFunc(w.serve)
	w.srv = httptest.NewServer(&w.rec)
	t.Cleanup(w.srv.Close)
	names := map[string]string{}
	for _, n := range w.names {
		names[n] = "127.0.0.1"
	}
	resolveWith(t, names)
	return w
}

// seed is site name's seed URL.
func (w *ownerWeb) seed(name string) string {
	_, port, _ := net.SplitHostPort(w.srv.Listener.Addr().String())
	return "http://" + name + ":" + port + "/"
}

func (w *ownerWeb) serve(rw http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.Host)
	page := func(title string, links ...string) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><h1>%s</h1><p>The page %s of %s says something worth finding.</p>", title, title, r.URL.Path, host)
		for _, l := range links {
			fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
		}
		b.WriteString("</body></html>")
		rw.Write([]byte(b.String()))
	}
	switch {
	case r.URL.Path == "/robots.txt" && host == "nosearch.test":
		rw.Write([]byte("User-agent: *\nContent-Signal: search=no, ai-train=no\nAllow: /\n"))
	case r.URL.Path == "/robots.txt":
		rw.Write([]byte("User-agent: *\nAllow: /\n"))
	case host == "mixed.test" && r.URL.Path == "/":
		page("Mixed", "/open", "/hidden", "/paid")
	case host == "mixed.test" && r.URL.Path == "/hidden":
		rw.Header().Set("X-Robots-Tag", "noindex")
		page("Hidden")
	case host == "mixed.test" && r.URL.Path == "/paid":
		rw.WriteHeader(http.StatusPaymentRequired)
		rw.Write([]byte("Pay to crawl."))
	case host == "optout.test" && r.URL.Path == "/":
		links := make([]string, optOutPages)
		for i := range links {
			links[i] = fmt.Sprintf("/o/%d", i)
		}
		page("Long", links...)
	case host == "optout.test":
		time.Sleep(50 * time.Millisecond)
		page("Long " + r.URL.Path)
	case r.URL.Path == "/":
		page("Index", "/p1", "/p2", "/p3", "/p4", "/p5")
	case len(r.URL.Path) == 3 && strings.HasPrefix(r.URL.Path, "/p"):
		page("Page " + r.URL.Path[2:])
	default:
		page("Other " + r.URL.Path)
	}
}

// optOutPages is optout.test's size: at the test's 20 ms politeness wait
// and its 50 ms answers, a crawl of some 30 s.
const optOutPages = 400

// askedAfter counts the requests site name received after t, and gives
// the time of the last one.
func (w *ownerWeb) askedAfter(name string, t time.Time) (n int, last time.Time) {
	for _, r := range w.rec.Requests() {
		u, err := url.Parse(r.URL)
		if err != nil || u.Hostname() != name {
			continue
		}
		if at := r.At; at.After(t) {
			n++
			last = at
		}
	}
	return n, last
}

// asked counts the requests site name received for path ("" = any).
func (w *ownerWeb) asked(name, path string) int {
	n := 0
	for _, r := range w.rec.Requests() {
		u, err := url.Parse(r.URL)
		if err == nil && u.Hostname() == name && (path == "" || u.Path == path) {
			n++
		}
	}
	return n
}

// TestWhatSitesSee is the site owners' black-box run: a manager started
// with no signing option, three volunteers (one of them older than the
// network's minimum version) and name-based sites on one shared address.
// Every request the sites get is signed in the dictionary form and
// verifies, with an independent RFC 9421 verifier, against the directory
// its Signature-Agent names; nothing of a site whose robots.txt refuses
// search, of a noindex page or of a 402 page is stored, and the 402 page
// is asked once; a site opted out while it is crawled gets no request a
// minute later, its crawl cut short; the outdated volunteer crawls
// nothing and says why.
func TestWhatSitesSee(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 4 libp2p hosts, Node.js and 5 web sites")
	}
	v := webbotauth.New(t)
	web := newOwnerWeb(t, 3)
	versions := []string{"0.9.0", "1.0.0", "1.0.0"}
	s := startTunedSwarm(t, len(versions), manager.Options{
		Admission: manager.AdmissionOptions{MinClientVersion: "1.0.0"},
		Schedule:  manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 2, MaxPerFeedback: -1}},
	}, func(i int, o *Options) { o.Version = versions[i] })
	ctx := context.Background()
	waitFor(t, 60*time.Second, "the current volunteers to join", func() bool {
		for _, c := range s.clients[1:] {
			if st := statusOf(ctx, t, c); st.Overlay == nil || !st.Overlay.Member {
				return false
			}
		}
		return true
	})
	seeds := make([]string, len(web.names))
	for i, n := range web.names {
		seeds[i] = web.seed(n)
	}
	if _, err := s.m.AddSeeds(seeds); err != nil {
		t.Fatal(err)
	}
	// Every other site crawled, then optout.test opted out while its
	// crawl runs, through the manager's local API as 'hivecrawl optout
	// add' does.
	waitFor(t, crawlWait, "every site but optout.test crawled, optout.test's crawl under way", func() bool {
		all, err := s.m.Channels().All(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range all {
			if !strings.HasPrefix(c.ID, "optout.test") && c.Updates == 0 {
				return false
			}
		}
		return web.asked("optout.test", "") >= 10
	})
	opted, err := s.m.OptOut([]string{"optout.test"}, "operator")
	if err != nil || len(opted) != 1 {
		t.Fatalf("opt out: %+v, %v", opted, err)
	}
	returned := time.Now()
	waitFor(t, time.Minute, "the opted-out crawl to leave every volunteer", func() bool {
		for _, c := range s.clients {
			for _, tk := range statusOf(ctx, t, c).Tasks.Running {
				if strings.Contains(tk.ID, "optout.test") {
					return false
				}
			}
		}
		return true
	})
	time.Sleep(3 * time.Second) // schedule rounds: none sends the host a task
	ictx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.m.Storage().Idle(ictx); err != nil {
		t.Fatalf("storage still busy: %v", err)
	}

	// The opted-out site: no request a minute after the call returned
	// (the bound), and its crawl cut short: an unstopped one would
	// have run to its end before leaving the volunteers.
	after, last := web.askedAfter("optout.test", returned)
	if last.After(returned.Add(time.Minute)) {
		t.Errorf("optout.test got a request %v after the opt-out returned", last.Sub(returned))
	}
	if total := web.asked("optout.test", ""); total > optOutPages {
		t.Errorf("optout.test got %d requests: its crawl went on to the end", total)
	} else {
		t.Logf("optout.test: %d requests in all, %d after the opt-out returned", total, after)
	}

	// Signed, in the dictionary form, naming the manager's origin.
	origin := strings.TrimSuffix(s.m.BotPageURL(), "/")
	got := web.rec.Requests()
	dict := 0
	for _, r := range got {
		if r.Headers["signature-agent"] == `sig1="`+origin+`"` && strings.Contains(r.Headers["signature-input"], `"signature-agent";key="sig1"`) {
			dict++
		}
	}
	t.Logf("%d requests, %d signed in the dictionary form naming %s", len(got), dict, origin)
	if len(got) < 20 || float64(dict) < 0.99*float64(len(got)) {
		t.Errorf("%d of %d requests signed in the dictionary form, want at least 99 %%", dict, len(got))
	}
	verified := 0
	for i, vd := range v.VerifyAll(t, got) {
		if vd.OK {
			verified++
		} else {
			t.Logf("%s not verified: %s", got[i].URL, vd.Error)
		}
	}
	t.Logf("%d of %d requests verified by http-message-signatures against the directory they name", verified, len(got))
	if float64(verified) < 0.95*float64(len(got)) {
		t.Errorf("%d of %d requests verified, want at least 95 %%", verified, len(got))
	}

	// What the sites refused is not stored, and 402 is not asked again.
	stored := map[string]bool{}
	eachText(t, s.m, func(target string, _ []byte) { stored[target] = true })
	for _, n := range web.names {
		if strings.HasPrefix(n, "plain-") && !stored[web.seed(n)+"p1"] {
			t.Errorf("%s/p1 not stored", n)
		}
	}
	for target := range stored {
		if strings.Contains(target, "nosearch.test") || strings.HasSuffix(target, "/hidden") || strings.HasSuffix(target, "/paid") {
			t.Errorf("stored %s, which its site refused", target)
		}
	}
	if !stored[web.seed("mixed.test")+"open"] {
		t.Error("mixed.test/open not stored")
	}
	if n, robots := web.asked("nosearch.test", ""), web.asked("nosearch.test", "/robots.txt"); n != robots {
		t.Errorf("nosearch.test got %d requests, %d of them robots.txt: want robots.txt only", n, robots)
	}
	if n := web.asked("mixed.test", "/paid"); n != 1 {
		t.Errorf("the 402 page was asked %d times, want once", n)
	}

	// The outdated volunteer took no task and says why.
	st := statusOf(ctx, t, s.clients[0])
	if st.Pages.Total != 0 || len(st.Reasons) == 0 || !strings.Contains(st.Reasons[0], "1.0.0") {
		t.Errorf("the outdated volunteer: %d pages, reasons %q; want none, and why", st.Pages.Total, st.Reasons)
	}
}
