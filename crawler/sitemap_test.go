package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// file is one resource of a test site.
type file struct {
	ctype, encoding string
	body            []byte
	status          int               // 0 = 200
	header          map[string]string // extra headers
}

// files serves a map of path → file; every other path is 404.
func files(m map[string]file) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range f.header {
			w.Header().Set(k, v)
		}
		if f.ctype != "" {
			w.Header().Set("Content-Type", f.ctype)
		}
		if f.encoding != "" {
			w.Header().Set("Content-Encoding", f.encoding)
		}
		if f.status != 0 {
			w.WriteHeader(f.status)
		}
		_, _ = w.Write(f.body)
	})
}

func htmlFile(body string) file { return file{ctype: "text/html", body: []byte(html(body))} }
func textFile(body string) file { return file{ctype: "text/plain", body: []byte(body)} }
func xmlFile(body string) file  { return file{ctype: "application/xml", body: []byte(body)} }

// urlset is a <urlset> of the given locations; a location may carry its
// <lastmod> after a space.
func urlset(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		loc, mod, _ := strings.Cut(l, " ")
		fmt.Fprintf(&b, "<url><loc>%s</loc>", loc)
		if mod != "" {
			fmt.Fprintf(&b, "<lastmod>%s</lastmod>", mod)
		}
		b.WriteString("</url>\n")
	}
	b.WriteString("</urlset>")
	return b.String()
}

func sitemapIndex(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>", l)
	}
	b.WriteString("</sitemapindex>")
	return b.String()
}

func gzipped(t testing.TB, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fetched returns the paths the site served, robots.txt left out, in order.
func (s *site) fetched() []string {
	var out []string
	for _, h := range s.requests("") {
		if h.Path != "/robots.txt" {
			out = append(out, h.Path)
		}
	}
	return out
}

// served reports whether the site was asked for path.
func (s *site) served(path string) bool { return slices.Contains(s.fetched(), path) }

// TestSitemapOnlyPages: pages that no page links to, listed only in the
// sitemap robots.txt names, are crawled one hop from the seed; a
// seeds-only task reads no sitemap.
func TestSitemapOnlyPages(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxDepth int
		want     []string
	}{
		{"depth 1", 1, []string{"/sitemap.xml", "/", "/hidden/1", "/hidden/2", "/a"}},
		{"seeds only", 0, []string{"/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *site
			s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				files(map[string]file{
					// The field name in any case (RFC 9309 §2.2.4), inside a group.
					"/robots.txt":  textFile("User-agent: *\nDisallow: /private\nSITEMAP: " + s.URL + "/sitemap.xml\n"),
					"/":            htmlFile(links("/a", "/sitemap.xml")),
					"/a":           htmlFile("a"),
					"/sitemap.xml": xmlFile(urlset(s.URL+"/hidden/1", s.URL+"/hidden/2", s.URL+"/a")),
					"/hidden/1":    htmlFile("<p>one</p>"),
					"/hidden/2":    htmlFile("<p>two</p>"),
				}).ServeHTTP(w, r)
			}))
			res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: tc.maxDepth})
			if got := s.fetched(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("fetched %v, want %v", got, tc.want)
			}
			if tc.maxDepth == 0 {
				if res.Stats.Sitemaps != 0 {
					t.Fatalf("Sitemaps = %d, want 0", res.Stats.Sitemaps)
				}
				return
			}
			for _, p := range []string{"/hidden/1", "/hidden/2"} {
				if pg := sink.byURL(s.URL + p); pg == nil || pg.Depth != 1 || pg.Status != 200 || pg.TextBytes == 0 {
					t.Fatalf("%s = %+v, want a page at depth 1 with text", p, pg)
				}
			}
			if res.Stats.Sitemaps != 1 || res.Stats.PagesFetched != 4 || len(res.Stats.Errors) != 0 {
				t.Fatalf("stats = %+v", res.Stats)
			}
			if sink.byURL(s.URL+"/sitemap.xml") != nil {
				t.Fatal("the sitemap was reported as a page")
			}
		})
	}
}

// TestSitemapIndex: an index on the channel's host leads to its child
// sitemaps (plain XML after a redirect, a .xml.gz file, a body sent with
// Content-Encoding: gzip, a text sitemap); an index inside an index, a
// sitemap on another host, a page on another host and a URL robots.txt
// disallows are not requested.
func TestSitemapIndex(t *testing.T) {
	other := newSite(t, files(map[string]file{
		"/sitemap.xml": xmlFile(urlset("http://example.invalid/x")),
		"/elsewhere":   htmlFile("x"),
	}))
	var s *site
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := s.URL
		files(map[string]file{
			"/robots.txt": textFile("Sitemap: " + u + "/index.xml\nsitemap: " + other.URL + "/sitemap.xml\nsite-map: " + u +
				"/urls.txt\nUser-agent: *\nDisallow: /private\n"),
			"/": htmlFile("home"),
			"/index.xml": xmlFile(sitemapIndex(u+"/moved.xml", "/a.xml.gz", u+"/b.xml", u+"/nested.xml",
				other.URL+"/sitemap.xml", u+"/private/sitemap.xml")),
			"/moved.xml":  {status: http.StatusMovedPermanently, header: map[string]string{"Location": "/m.xml"}},
			"/m.xml":      xmlFile(urlset(u + "/m")),
			"/a.xml.gz":   {ctype: "application/x-gzip", body: gzipped(t, urlset(u+"/g"))},
			"/b.xml":      {ctype: "application/xml", encoding: "gzip", body: gzipped(t, urlset(u+"/b", other.URL+"/elsewhere", u+"/private/p"))},
			"/nested.xml": xmlFile(sitemapIndex(u + "/deeper.xml")),
			"/deeper.xml": xmlFile(urlset(u + "/deep")),
			"/urls.txt":   textFile(u + "/t\n"),
			"/m":          htmlFile("m"), "/g": htmlFile("g"), "/b": htmlFile("b"), "/t": htmlFile("t"),
			"/deep": htmlFile("deep"), "/private/p": htmlFile("p"), "/private/sitemap.xml": xmlFile(urlset(u + "/private/q")),
		}).ServeHTTP(w, r)
	}))
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 3})
	for _, p := range []string{"/m", "/g", "/b", "/t"} {
		if pg := sink.byURL(s.URL + p); pg == nil || pg.Status != 200 {
			t.Errorf("%s = %+v, want crawled", p, pg)
		}
	}
	for _, p := range []string{"/deeper.xml", "/deep", "/private/sitemap.xml", "/private/p"} {
		if s.served(p) {
			t.Errorf("%s was requested", p)
		}
	}
	if n := len(other.requests("")); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
	if slices.Contains(res.InterSite, other.URL+"/elsewhere") {
		t.Error("a sitemap's URL on another host was reported as a link")
	}
	// index, moved and its target, a, b, nested, urls.txt: seven requests.
	if res.Stats.Sitemaps != 7 || len(res.Stats.Errors) != 2 ||
		res.Stats.Errors["sitemap_nested_index"] != 1 || res.Stats.Errors["sitemap_robots"] != 1 {
		t.Fatalf("stats = %+v", res.Stats)
	}
}

// TestSitemapLastmod: a known page the task revisits whose Last-Modified
// is not before its <lastmod> is reported unchanged without a request;
// the other known pages are requested, seeds always; pages the task does
// not know are queued after the known ones.
func TestSitemapLastmod(t *testing.T) {
	const lm = "Wed, 01 May 2024 10:00:00 GMT"
	var s *site
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := s.URL
		m := map[string]file{
			"/robots.txt": textFile("Sitemap: " + u + "/sitemap.xml\n"),
			"/":           htmlFile("home"),
			"/sitemap.xml": xmlFile(urlset(
				u+"/ 2024-05-01T09:00:00Z",            // a seed: fetched all the same
				u+"/undated",                          // known, no lastmod: fetched
				u+"/old 2024-05-01T09:00:00Z",         // not modified since: skipped
				u+"/same 2024-05-01T12:00:00+02:00",   // the very instant: skipped
				u+"/changed 2024-05-02T08:00:00Z",     // modified since: fetched
				u+"/sameday 2024-05-01",               // a date only may be later that day: fetched
				u+"/new 2024-04-01",                   // not known: fetched, after the known ones
				u+"/private/old 2024-05-01T09:00:00Z", // filtered out: neither fetched nor reported
			)),
		}
		for _, p := range []string{"/undated", "/old", "/same", "/changed", "/sameday", "/new", "/private/old"} {
			m[p] = htmlFile(p)
		}
		files(m).ServeHTTP(w, r)
	}))
	var vs []task.Validator
	for _, p := range []string{"/", "/undated", "/old", "/same", "/changed", "/sameday", "/private/old"} {
		vs = append(vs, task.Validator{URL: s.URL + p, ETag: `"e` + p + `"`, LastModified: lm, Depth: 1})
	}
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1, Validators: vs,
		Filters: []string{`^http://[^/]+/[^p]*$`}})
	want := []string{"/sitemap.xml", "/", "/undated", "/changed", "/sameday", "/new"}
	if got := s.fetched(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("fetched %v, want %v", got, want)
	}
	for _, p := range []string{"/old", "/same"} {
		pg := sink.byURL(s.URL + p)
		if pg == nil || !pg.Unchanged || pg.Status != 0 || pg.Digest != 0 || pg.LastModified != lm || pg.ETag != `"e`+p+`"` || pg.Depth != 1 {
			t.Fatalf("%s = %+v, want reported unchanged with its validators", p, pg)
		}
	}
	if sink.byURL(s.URL+"/private/old") != nil {
		t.Fatal("a page out of the task's filters was reported")
	}
	st := res.Stats
	if st.PagesSkipped != 2 || st.PagesFetched != 5 || st.PagesUnchanged != 0 || st.Dirs["/"] != 7 {
		t.Fatalf("stats = %+v", st)
	}
}

// TestSitemapLimits: a sitemap past the byte cap is read up to the cap and
// the crawl goes on; hostile sitemaps (a gzip bomb, an endless body,
// broken XML, an HTML page, a failing server) are counted as errors and
// cost nothing else.
func TestSitemapLimits(t *testing.T) {
	const maxBody = 4 << 10
	// Small on the wire, far past the cap decompressed.
	bomb := gzipped(t, "<urlset>"+strings.Repeat("<url><loc>/l/1</loc></url>", 30_000))
	if len(bomb) >= maxBody {
		t.Fatalf("bomb of %d bytes does not fit under the cap", len(bomb))
	}
	var many []string
	for i := range 1000 {
		many = append(many, fmt.Sprintf("/l/%d", i))
	}
	for _, tc := range []struct {
		name    string
		sitemap http.HandlerFunc
		kind    string
		listed  int // listed pages crawled, at least
	}{
		{"oversize cut at the cap", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, urlset(many...))
		}, "sitemap_body_too_large", 20},
		{"gzip bomb file", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/gzip")
			_, _ = w.Write(bomb)
		}, "sitemap_body_too_large", 1},
		{"gzip bomb encoding", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb)
		}, "sitemap_body_too_large", 1},
		{"endless body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, "<urlset>")
			for r.Context().Err() == nil {
				if _, err := fmt.Fprint(w, "<url><loc>/l/1</loc></url>"); err != nil {
					return
				}
			}
		}, "sitemap_body_too_large", 1},
		{"broken XML", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "<urlset><url><loc>/l/1</loc></url><url><loc>/l/2</loc></url><url <<< </urlset>")
		}, "sitemap_malformed", 2},
		{"broken gzip", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff, 1, 2, 3})
		}, "sitemap_bad_encoding", 0},
		{"an HTML page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, html(links("/l/1")))
		}, "sitemap_not_sitemap", 0},
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		}, "sitemap_http_500", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *site
			s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/sitemap.xml" {
					tc.sitemap(w, r)
					return
				}
				m := map[string]file{
					"/robots.txt": textFile("Sitemap: " + s.URL + "/sitemap.xml\n"),
					"/":           htmlFile(links("/a")),
					"/a":          htmlFile("a"),
				}
				for _, p := range many {
					m[p] = htmlFile("l")
				}
				files(m).ServeHTTP(w, r)
			}))
			cfg := testConfig(t)
			cfg.MaxBodyBytes = maxBody
			res, _ := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
			if res.Stats.Errors[tc.kind] != 1 || len(res.Stats.Errors) != 1 {
				t.Fatalf("errors = %v, want one %s", res.Stats.Errors, tc.kind)
			}
			if !s.served("/") || !s.served("/a") || res.Stopped != "" {
				t.Fatalf("fetched %v, stopped %q: the rest of the crawl suffered", s.fetched(), res.Stopped)
			}
			listed := len(s.requests("/l/"))
			if listed < tc.listed || (tc.listed == 0 && listed != 0) {
				t.Fatalf("%d listed pages crawled, want at least %d", listed, tc.listed)
			}
			if tc.name == "oversize cut at the cap" && listed >= len(many) {
				t.Fatalf("all %d listed pages crawled past the cap", listed)
			}
			if res.Stats.BytesDown > 1<<20 {
				t.Fatalf("read %d bytes", res.Stats.BytesDown)
			}
		})
	}
}

// TestSitemapFileCap: an index listing more sitemaps than MaxSitemaps
// costs MaxSitemaps requests.
func TestSitemapFileCap(t *testing.T) {
	var s *site
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := map[string]file{
			"/robots.txt": textFile("Sitemap: " + s.URL + "/index.xml\n"),
			"/":           htmlFile("home"),
		}
		var children []string
		for i := range 2 * MaxSitemaps {
			p := fmt.Sprintf("/s/%d.xml", i)
			children = append(children, p)
			m[p] = xmlFile(urlset(fmt.Sprintf("/p/%d", i)))
			m[fmt.Sprintf("/p/%d", i)] = htmlFile("p")
		}
		m["/index.xml"] = xmlFile(sitemapIndex(children...))
		files(m).ServeHTTP(w, r)
	}))
	res, _ := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	if n := len(s.requests("/s/")) + len(s.requests("/index.xml")); n != MaxSitemaps || res.Stats.Sitemaps != MaxSitemaps {
		t.Fatalf("%d sitemap requests (stats %d), want %d", n, res.Stats.Sitemaps, MaxSitemaps)
	}
	if res.Stats.Errors["sitemap_too_many_files"] != 1 || len(s.requests("/p/")) != MaxSitemaps-1 {
		t.Fatalf("errors %v, %d listed pages", res.Stats.Errors, len(s.requests("/p/")))
	}
}

// TestRobotsSitemaps: Sitemap: lines are kept whatever their group and
// the case of their field name, empty ones dropped, at most
// maxRobotsSitemaps.
func TestRobotsSitemaps(t *testing.T) {
	body := "Sitemap: http://a.example/1.xml\nUser-agent: other\nDisallow: /\nsitemap:http://a.example/2.xml\n" +
		"User-agent: *\nSITEMAP:   http://a.example/3.xml  \nSitemap:\nsite-map: /4.xml\n"
	if got := parseRobots([]byte(body), "hivecrawl").sitemaps; fmt.Sprint(got) != "[http://a.example/1.xml http://a.example/2.xml http://a.example/3.xml /4.xml]" {
		t.Fatalf("sitemaps = %q", got)
	}
	many := strings.Repeat("Sitemap: http://a.example/s.xml\n", 2*maxRobotsSitemaps)
	if got := len(parseRobots([]byte(many), "hivecrawl").sitemaps); got != maxRobotsSitemaps {
		t.Fatalf("kept %d sitemaps, want %d", got, maxRobotsSitemaps)
	}
}

// TestSitemapResume: a run resumed from a checkpoint does not read the
// sitemaps again (URLseen holds them), and crawls the listed pages left.
func TestSitemapResume(t *testing.T) {
	var s *site
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := map[string]file{
			"/robots.txt": textFile("Sitemap: " + s.URL + "/sitemap.xml\n"),
			"/":           htmlFile("home"),
		}
		var listed []string
		for i := range 10 {
			p := fmt.Sprintf("/l/%d", i)
			listed = append(listed, p)
			m[p] = htmlFile(p)
		}
		m["/sitemap.xml"] = xmlFile(urlset(listed...))
		files(m).ServeHTTP(w, r)
	}))
	tk := &task.Task{ID: "t", Channel: "c", Seeds: []string{s.URL + "/"}, MaxDepth: 1}
	ctx, cancel := context.WithCancel(context.Background())
	first := &stoppingSink{n: 4, cancel: cancel}
	var last *Progress
	if _, err := New(testConfig(t)).RunFrom(ctx, tk, first, RunOptions{Every: 2, Checkpoint: func(p *Progress) error {
		last = p
		return nil
	}}); err == nil || last == nil {
		t.Fatalf("the run was not interrupted after a checkpoint: %v", err)
	}
	second := &memSink{}
	if _, err := New(testConfig(t)).RunFrom(context.Background(), tk, second, RunOptions{Resume: last}); err != nil {
		t.Fatal(err)
	}
	if n := len(s.requests("/sitemap.xml")); n != 1 {
		t.Fatalf("sitemap requested %d times, want once", n)
	}
	if sink := second.byURL(s.URL + "/l/9"); sink == nil {
		t.Fatal("the resumed run did not crawl the listed pages left")
	}
}

// TestSitemapParseAdmitted: a sitemap's parse is admitted against the
// memory budget (three times its bytes, plus 2 MiB) and given back.
func TestSitemapParseAdmitted(t *testing.T) {
	var s *site
	sm := urlset("/l")
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files(map[string]file{
			"/robots.txt":  textFile("Sitemap: " + s.URL + "/sitemap.xml\n"),
			"/":            htmlFile("home"),
			"/l":           htmlFile("l"),
			"/sitemap.xml": xmlFile(sm),
		}).ServeHTTP(w, r)
	}))
	cfg := testConfig(t)
	a := &countingAdmitter{}
	cfg.Admit = a
	runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	want := 3*int64(len(sm)) + 2<<20 + ParseCost(len(html("home"))) + ParseCost(len(html("l")))
	if a.asked != 3 || a.released != 3 || a.bytes != want {
		t.Fatalf("admitted %d (%d bytes), released %d; want 3 (%d bytes)", a.asked, a.bytes, a.released, want)
	}
}
