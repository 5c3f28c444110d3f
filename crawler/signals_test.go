package crawler

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

func TestParsePrefs(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"content signal words", "search=yes, ai-train=no", "ai-train=n, search=y"},
		{"aipref letters", "train-ai=n,search=y", "search=y, train-ai=n"},
		{"any case", "Search=YES, AI-Input=No", "ai-input=n, search=y"},
		{"spaces and quotes", ` search = "n" `, "search=n"},
		{"parameters dropped", "train-ai=n;note=x, bots=y", "bots=y, train-ai=n"},
		{"unknown values left out", "search=maybe, bots=1, x, =n, train-ai=", ""},
		{"a no stands when said twice", "search=y, search=n, search=y", "search=n"},
		{"bad key characters", "se arch=n, s/x=n, ok=n", "ok=n"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summary([]statement{{prefs: parsePrefs(tc.in)}})
			if got != tc.want {
				t.Fatalf("parsePrefs(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestPrefsRefuse(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"search=n", "search"},
		{"search=no, ai-train=yes", "search"},
		{"search=y", ""},
		{"bots=n", "bots"},
		{"bots=n, search=y", ""},
		{"bots=y, search=n", "search"},
		{"train-ai=n, ai-train=no", ""},
		{"", ""},
	} {
		if got := parsePrefs(tc.in).refuses(task.PurposeSearch); got != tc.want {
			t.Errorf("%q refuses search by %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRobotsContentSignals extends the robots.txt cases with Content-Signal
// and Content-Usage rules: which group applies, paths, longest match, and
// when a refusal covers the whole host.
func TestRobotsContentSignals(t *testing.T) {
	for _, tc := range []struct {
		name, body, path string
		refused          string // the rule refusing search for path
		host             bool   // refused for the whole host
		signals          string // summary of what applies to path
	}{
		{"content signal in the global group", "User-Agent: *\nContent-Signal: search=no\nAllow: /\n", "/a",
			"robots.txt Content-Signal: search=n", true, "search=n"},
		{"content signal allowing search", "User-Agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n", "/a",
			"", false, "ai-train=n, search=y"},
		{"line outside groups applies to all", "Content-Signal: search=no\n\nUser-agent: other\nDisallow: /x\n", "/a",
			"robots.txt Content-Signal: search=n", true, "search=n"},
		{"our group hides the global one", "User-agent: *\nContent-Signal: search=no\n\nUser-agent: hivecrawl\nContent-Signal: search=yes\n", "/",
			"", false, "search=y"},
		{"our group refuses", "User-agent: *\nContent-Signal: search=yes\n\nUser-agent: HiveCrawl/2\nContent-Signal: search=no\n", "/",
			"robots.txt Content-Signal: search=n", true, "search=n"},
		{"our group without signals hides the global ones", "User-agent: *\nContent-Signal: search=no\n\nUser-agent: hivecrawl\nDisallow: /x\n", "/",
			"", false, ""},
		{"another agent's group", "User-agent: otherbot\nContent-Signal: search=no\n\nUser-agent: *\nContent-Signal: search=yes\n", "/",
			"", false, "search=y"},
		{"content usage refusing all bots", "User-agent: *\nContent-Usage: bots=n\n", "/a",
			"robots.txt Content-Usage: bots=n", true, "bots=n"},
		{"content usage search over bots", "User-agent: *\nContent-Usage: bots=n, search=y\n", "/a",
			"", false, "bots=n, search=y"},
		{"content usage for a path", "User-agent: *\nContent-Usage: /private/ search=n\n", "/private/x",
			"robots.txt Content-Usage: search=n", false, "search=n"},
		{"content usage path elsewhere", "User-agent: *\nContent-Usage: /private/ search=n\n", "/public",
			"", false, ""},
		{"longest path wins", "User-agent: *\nContent-Usage: search=n\nContent-Usage: /blog/ search=y\n", "/blog/1",
			"", false, "search=y"},
		{"longest path wins elsewhere", "User-agent: *\nContent-Usage: search=n\nContent-Usage: /blog/ search=y\n", "/shop",
			"robots.txt Content-Usage: search=n", false, "search=n"},
		{"longer rule silent on search", "User-agent: *\nContent-Usage: / search=n\nContent-Usage: /blog/ train-ai=n\n", "/blog/1",
			"", false, "train-ai=n"},
		{"wildcard path", "User-agent: *\nContent-Usage: /*.pdf$ search=n\n", "/doc.pdf",
			"robots.txt Content-Usage: search=n", false, "search=n"},
		{"both vocabularies, any refusal counts", "User-agent: *\nContent-Signal: search=yes\nContent-Usage: search=n\n", "/",
			"robots.txt Content-Usage: search=n", true, "search=n"},
		{"keys in any case and spelling", "USER-AGENT: *\ncontent-signal: SEARCH=NO\n", "/",
			"robots.txt Content-Signal: search=n", true, "search=n"},
		{"comments", "User-agent: * # all\nContent-Signal: search=no # please\n", "/",
			"robots.txt Content-Signal: search=n", true, "search=n"},
		{"junk values ignored", "User-agent: *\nContent-Signal: search=perhaps\nContent-Usage:\n", "/",
			"", false, ""},
		{"a group ends at a signal line", "User-agent: otherbot\nContent-Signal: search=no\nUser-agent: *\nContent-Signal: search=yes\n", "/",
			"", false, "search=y"},
		{"no signals", "User-agent: *\nDisallow: /x\n", "/", "", false, ""},
		{"a path too long to match is left out", "User-agent: *\nContent-Usage: /" + strings.Repeat("a", maxSignalPath) + " search=n\n",
			"/" + strings.Repeat("a", maxSignalPath), "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := robotsForStatus(200, []byte(tc.body), "hivecrawl")
			u := mustURL(t, "http://h"+tc.path)
			if got := r.refusal(u, task.PurposeSearch); got != tc.refused {
				t.Errorf("refusal(%s) = %q, want %q", tc.path, got, tc.refused)
			}
			if got := hostRefusal(r.signals, task.PurposeSearch) != ""; got != tc.host {
				t.Errorf("refused for the whole host = %v, want %v", got, tc.host)
			}
			if got := summary(r.statements(u)); got != tc.signals {
				t.Errorf("signals for %s = %q, want %q", tc.path, got, tc.signals)
			}
		})
	}
}

// TestRobotsSignalsOnlyFromAFile: a robots.txt whose rules are not
// parsed (an error status) carries no signals; a 200 one always does.
func TestRobotsSignalsOnlyFromAFile(t *testing.T) {
	body := []byte("User-agent: *\nContent-Signal: search=no\n")
	for _, status := range []int{404, 500, 0} {
		if r := robotsForStatus(status, body, "hivecrawl"); len(r.signals) != 0 {
			t.Errorf("status %d: %d signal rules, want none", status, len(r.signals))
		}
	}
	if r := robotsForStatus(200, body, "hivecrawl"); len(r.signals) != 1 {
		t.Errorf("status 200: %d signal rules, want 1", len(r.signals))
	}
}

func TestHeaderSignals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		header  http.Header
		refused string
		signals string
	}{
		{"content usage", http.Header{"Content-Usage": {"search=n"}}, "Content-Usage header: search=n", "search=n"},
		{"content signal", http.Header{"Content-Signal": {"search=yes, ai-train=no"}}, "", "ai-train=n, search=y"},
		{"two fields of one name", http.Header{"Content-Usage": {"train-ai=n", "bots=n"}}, "Content-Usage header: bots=n", "bots=n, train-ai=n"},
		{"none", http.Header{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sts := headerSignals(tc.header)
			if got := refusal(sts, task.PurposeSearch); got != tc.refused {
				t.Errorf("refusal = %q, want %q", got, tc.refused)
			}
			if got := summary(sts); got != tc.signals {
				t.Errorf("signals = %q, want %q", got, tc.signals)
			}
		})
	}
}

// FuzzContentSignals: no robots.txt or header panics the readers; the
// recorded signals stay within bounds; and a refusal for the whole host
// refuses every path of it.
func FuzzContentSignals(f *testing.F) {
	f.Add("User-Agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n", "search=n", "/a")
	f.Add("Content-Usage: bots=n\nuser-agent: hivecrawl\ncontent-usage: /x/ search=y\n", "train-ai=n;q", "/x/y")
	f.Add("User-agent: *\nContent-Usage: / search=n\nContent-Usage: /*.pdf$ search=y\n", "bots=n", "/a.pdf")
	f.Add("useragent hivecrawl\ncontentusage /%7E bots=N\ncontent_signal * search=no\n", `search="y"`, "/~")
	f.Fuzz(func(t *testing.T, body, header, path string) {
		u, err := url.Parse("http://h/" + path)
		if err != nil {
			return
		}
		r := robotsForStatus(200, []byte(body), "hivecrawl")
		sts := append(r.statements(u), headerSignals(http.Header{"Content-Usage": {header}, "Content-Signal": {header}})...)
		if s := summary(sts); len(s) > task.MaxSignalsLen {
			t.Fatalf("signals %d bytes, over %d", len(s), task.MaxSignalsLen)
		}
		for _, st := range sts {
			if len(st.prefs) > maxPrefs {
				t.Fatalf("%d preferences kept, over %d", len(st.prefs), maxPrefs)
			}
		}
		if why := hostRefusal(r.signals, task.PurposeSearch); why != "" && r.refusal(u, task.PurposeSearch) == "" {
			t.Fatalf("the whole host is refused (%s) but %s is not; rules %s", why, robotsPathOf(u), fmt.Sprint(r.signals))
		}
	})
}

// TestContentSignalsInRun crawls a site whose robots.txt refuses search:
// nothing of it is asked for but robots.txt, nothing is stored, and the
// result says why.
func TestContentSignalsInRun(t *testing.T) {
	for _, tc := range []struct {
		name, robots string
		fetched      []string
		refused      string
	}{
		{"content signal refuses search", "User-Agent: *\nContent-Signal: search=no, ai-train=no\nAllow: /\n",
			nil, "robots.txt Content-Signal: search=n"},
		{"content usage refuses all bots", "User-Agent: *\nContent-Usage: bots=n\n",
			nil, "robots.txt Content-Usage: bots=n"},
		{"content usage refuses a path", "User-Agent: *\nContent-Usage: /private/ search=n\n",
			[]string{"/", "/open"}, ""},
		{"content signal allows search", "User-Agent: *\nContent-Signal: search=yes, ai-train=no\n",
			[]string{"/", "/open", "/private/p"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]string{
				"/robots.txt": tc.robots,
				"/":           html(links("/open", "/private/p")),
				"/open":       html("<p>open text</p>"),
				"/private/p":  html("<p>private text</p>"),
			}
			s := newSite(t, pages(m))
			res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
			got := s.pagePaths()
			if fmt.Sprint(got) != fmt.Sprint(tc.fetched) {
				t.Fatalf("fetched %v, want %v", got, tc.fetched)
			}
			if res.Refused != tc.refused {
				t.Fatalf("Refused = %q, want %q", res.Refused, tc.refused)
			}
			if tc.refused != "" {
				if want := StoppedRefused + ": " + tc.refused; res.Stopped != want {
					t.Fatalf("Stopped = %q, want %q", res.Stopped, want)
				}
				if len(sink.pages) != 0 || res.Strike != "" {
					t.Fatalf("%d pages recorded, strike %q; want none", len(sink.pages), res.Strike)
				}
			}
			for _, p := range sink.pages {
				if len(p.Text) == 0 {
					t.Errorf("%s stored without text", p.URL)
				}
			}
		})
	}
}

// TestContentSignalHeaders: a page whose header refuses search is
// recorded without text, as a noindex page is; the signals of a page
// stored go with it.
func TestContentSignalHeaders(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nContent-Signal: ai-train=no\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, html(links("/usage", "/signal", "/bots", "/fine")))
		case "/usage":
			w.Header().Set("Content-Usage", "search=n")
			fmt.Fprint(w, html("<p>not for search</p>"+links("/from-usage")))
		case "/signal":
			w.Header().Set("Content-Signal", "search=no")
			fmt.Fprint(w, html("<p>not for search either</p>"))
		case "/bots":
			w.Header().Set("Content-Usage", "bots=n")
			fmt.Fprint(w, html("<p>no bots</p>"+links("/from-bots")))
		case "/fine", "/from-usage", "/from-bots":
			w.Header().Set("Content-Usage", "search=y")
			fmt.Fprint(w, html("<p>searchable words</p>"))
		default:
			http.NotFound(w, r)
		}
	})
	s := newSite(t, mux)
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 2})
	for _, tc := range []struct {
		path, refused, signals string
	}{
		{"/usage", "Content-Usage header: search=n", "ai-train=n, search=n"},
		{"/signal", "Content-Signal header: search=n", "ai-train=n, search=n"},
		{"/bots", "Content-Usage header: bots=n", "ai-train=n, bots=n"},
		{"/fine", "", "ai-train=n, search=y"},
		{"/from-usage", "", "ai-train=n, search=y"},
	} {
		p := sink.byURL(s.URL + tc.path)
		if p == nil {
			t.Fatalf("%s not recorded", tc.path)
		}
		if p.Refused != tc.refused || p.Signals != tc.signals {
			t.Errorf("%s: refused %q, signals %q; want %q, %q", tc.path, p.Refused, p.Signals, tc.refused, tc.signals)
		}
		if stored := len(p.Text) > 0; stored != (tc.refused == "") {
			t.Errorf("%s: %d text bytes with refusal %q", tc.path, len(p.Text), tc.refused)
		}
		if p.NoIndex {
			t.Errorf("%s: recorded noindex, want only refused", tc.path)
		}
	}
	if n := len(s.requests("/from-bots")); n != 0 {
		t.Errorf("a link of a page refusing all bots was followed (%d requests)", n)
	}
	if res.Refused != "" || res.Stopped != "" {
		t.Errorf("result refused %q, stopped %q: a page's header refuses that page only", res.Refused, res.Stopped)
	}
}

// TestPaymentRequired: a 402 page is a refusal, asked once however often
// it is linked, not retried, not stored, and no strike against the host.
func TestPaymentRequired(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, html(links("/paid", "/a", "/moved")))
		case "/a":
			fmt.Fprint(w, html("<p>free words</p>"+links("/paid")))
		case "/moved":
			http.Redirect(w, r, "/paid", http.StatusFound)
		case "/paid":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusPaymentRequired)
			fmt.Fprint(w, html("<p>pay to crawl</p>"))
		default:
			http.NotFound(w, r)
		}
	})
	s := newSite(t, mux)
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 2})
	if n := len(s.requests("/paid")); n != 1 {
		t.Fatalf("/paid asked %d times, want once", n)
	}
	p := sink.byURL(s.URL + "/paid")
	if p == nil || p.Status != http.StatusPaymentRequired || p.Refused == "" || len(p.Text) != 0 || p.Error == "" {
		t.Fatalf("402 page recorded as %+v, want refused, with its error and no text", p)
	}
	if res.Strike != "" || res.Stopped != "" || res.Stats.PagesFetched != 2 {
		t.Fatalf("strike %q, stopped %q, %d pages fetched; want no strike, a whole crawl of 2 pages", res.Strike, res.Stopped, res.Stats.PagesFetched)
	}
}
