package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// crawlSite serves one fixture site for the duration of the test.
func crawlSite(t *testing.T, s fixture.Site) *fixture.Web {
	t.Helper()
	web, err := fixture.New([]fixture.Site{s}, fixture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Close() })
	return web
}

func runCrawlCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = crawlMain(context.Background(), args, &out, &errb, false)
	return code, out.String(), errb.String()
}

// pageLines splits JSON lines output into its page lines and summary.
func pageLines(t *testing.T, out string) ([]export.PageLine, map[string]any) {
	t.Helper()
	var pages []export.PageLine
	var summary map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if summary != nil {
			t.Fatalf("line after the summary: %s", sc.Text())
		}
		var head struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		switch head.Type {
		case "page":
			var p export.PageLine
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			pages = append(pages, p)
		case "summary":
			if err := json.Unmarshal(sc.Bytes(), &summary); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("line of type %q", head.Type)
		}
	}
	if summary == nil {
		t.Fatal("no summary line")
	}
	return pages, summary
}

func TestCrawlJSONL(t *testing.T) {
	site := fixture.Site{Name: "cmd.test", Pages: 30, PageBytes: 4 << 10}
	web := crawlSite(t, site)
	code, out, errs := runCrawlCmd(t, "--allow-loopback", "--delay", "0", "--depth", "10", web.URL(site.Name))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("stderr not empty without a terminal: %q", errs)
	}
	pages, summary := pageLines(t, out)
	s := web.Site(site.Name)
	want := map[string]int{}
	for i := range s.Pages {
		want[web.PageURL(site.Name, i)] = i
	}
	got := map[string]bool{}
	for _, p := range pages {
		i, ok := want[p.URL]
		if !ok {
			t.Errorf("unexpected page %s (status %d)", p.URL, p.Status)
			continue
		}
		got[p.URL] = true
		if p.Status != 200 || !strings.HasPrefix(p.Title, s.Title(i, 0)+" | ") {
			t.Errorf("%s: status %d title %q, want 200 and %q", p.URL, p.Status, p.Title, s.Title(i, 0))
		}
		if len(p.Text) < 1000 || strings.Contains(p.Text, "<p>") || strings.Contains(p.Text, "Members area") {
			t.Errorf("%s: text of %d bytes does not look like the article: %.200q", p.URL, len(p.Text), p.Text)
		}
	}
	if len(got) != s.Pages {
		t.Errorf("%d distinct pages, want %d", len(got), s.Pages)
	}
	stats := summary["stats"].(map[string]any)
	if stats["pages_fetched"].(float64) != float64(s.Pages) || summary["channel"] != strings.TrimPrefix(strings.TrimSuffix(web.URL(site.Name), "/"), "http://") {
		t.Errorf("summary %v", summary)
	}
	// One connection at a time, kept from one request to the next where
	// it can be (crawler's package doc: Go's transport may drop it on a
	// busy machine, so reuse is most requests on a connection already
	// open).
	if st := web.Stats(site.Name); st.MaxConns != 1 || st.MaxInFlight != 1 || st.Conns > st.Requests/2 || st.Disallowed != 0 || st.Robots != 1 {
		t.Errorf("server saw %+v, want one connection and one request at a time, most requests on a connection already open, robots.txt once, no disallowed page", st)
	}
}

func TestCrawlWARCFile(t *testing.T) {
	site := fixture.Site{Name: "warc.test", Pages: 12, PageBytes: 3 << 10}
	web := crawlSite(t, site)
	for _, name := range []string{"out.warc", "out.warc.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			// Flags after the URL work too.
			code, out, errs := runCrawlCmd(t, web.URL(site.Name), "--allow-loopback", "--delay=0",
				"--format", "warc", "--out", path)
			if code != 0 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
			}
			rd, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithStrictValidation())
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var uris []string
			var summary bool
			for n := 0; ; n++ {
				rec, _, v, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil || !v.Valid() {
					t.Fatalf("record %d: %v %v", n, err, v)
				}
				if err := rec.ValidateDigest(v); err != nil || !v.Valid() {
					t.Fatalf("record %d digest: %v %v", n, err, v)
				}
				if n == 0 {
					if rec.Type() != gowarc.Warcinfo || rec.WarcHeader().Get(gowarc.WarcFilename) != name {
						t.Fatalf("first record %v", rec)
					}
					continue
				}
				if rec.Type() == gowarc.Metadata && !summary {
					summary = true
					continue
				}
				if rec.Type() != gowarc.Conversion || summary {
					t.Fatalf("record %d is %v (after the summary: %v)", n, rec.Type(), summary)
				}
				uris = append(uris, rec.WarcHeader().Get(gowarc.WarcTargetURI))
			}
			var want []string
			for i := range site.Pages {
				want = append(want, web.PageURL(site.Name, i))
			}
			if !summary {
				t.Error("no summary record")
			}
			sort.Strings(uris)
			sort.Strings(want)
			if strings.Join(uris, " ") != strings.Join(want, " ") {
				t.Errorf("record URIs\n %v\nwant\n %v", uris, want)
			}
		})
	}
}

func TestCrawlFilterAndDepth(t *testing.T) {
	site := fixture.Site{Name: "filter.test", Pages: 40, PageBytes: 2 << 10}
	web := crawlSite(t, site)
	code, out, errs := runCrawlCmd(t, "--allow-loopback", "--delay", "0", "--depth", "1",
		"--filter", `/$`, "--filter", `/page-[13]\.html$`, web.URL(site.Name))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	pages, _ := pageLines(t, out)
	var got []string
	for _, p := range pages {
		got = append(got, strings.TrimPrefix(p.URL, strings.TrimSuffix(web.URL(site.Name), "/")))
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "/ /page-1.html /page-3.html" {
		t.Errorf("pages %v, want /, /page-1.html, /page-3.html", got)
	}
}

func TestCrawlCommandLineErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no URL", nil, 2, "missing URL"},
		{"bad scheme", []string{"ftp://example.com/"}, 2, "not an http or https URL"},
		{"not a URL", []string{"::nonsense"}, 2, "not an http or https URL"},
		{"two URLs", []string{"http://a.example/", "http://b.example/"}, 2, "one URL only"},
		{"unknown flag", []string{"--bogus", "http://a.example/"}, 2, "bogus"},
		{"bad format", []string{"--format", "csv", "http://a.example/"}, 2, "unknown format"},
		{"bad regex", []string{"--filter", "(", "http://a.example/"}, 2, "bad regular expression"},
		{"bad depth", []string{"--depth", "-1", "http://a.example/"}, 2, "--depth"},
		{"bad delay", []string{"--delay", "soon", "http://a.example/"}, 2, "delay"},
		{"user agent without a product token", []string{"--user-agent", "/5.0 x", "http://a.example/"}, 2, "product token"},
		{"user agent with a control character", []string{"--user-agent", "mybot\r\nX-Evil: 1", "http://a.example/"}, 2, "product token"},
		{"unwritable output", []string{"--out", "/nonexistent/dir/x.jsonl", "http://a.example/"}, 1, "create output"},
		{"loopback refused", []string{"--delay", "0", "http://127.0.0.1:1/"}, 1, "--allow-loopback"},
		{"connection refused", []string{"--allow-loopback", "--delay", "0", "http://" + closed + "/"}, 1,
			"no pages fetched: 127.0.0.1 refused the connection (nothing listens on its port); check the URL and this machine's network connection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCrawlCmd(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errs)
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "hivecrawl crawl: ") || !strings.Contains(errs, tt.msg) {
				t.Errorf("stderr %q, want one line with %q", errs, tt.msg)
			}
		})
	}
}

func TestCrawlHelp(t *testing.T) {
	code, out, errs := runCrawlCmd(t, "-h")
	if code != 0 || !strings.Contains(out, "usage: hivecrawl crawl URL") || !strings.Contains(out, "--max-pages N") || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the usage on stdout", code, out, errs)
	}
}

func TestCrawlProgressOnTerminal(t *testing.T) {
	site := fixture.Site{Name: "progress.test", Pages: 5, PageBytes: 2 << 10}
	web := crawlSite(t, site)
	var out, errb bytes.Buffer
	code := crawlMain(context.Background(), []string{"--allow-loopback", "--delay", "0", web.URL(site.Name)}, &out, &errb, true)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	errs := errb.String()
	if !strings.Contains(errs, "\r\033[K1 pages, 0 errors") || !strings.Contains(errs, "\r\033[K5 pages (0 unchanged), 0 errors, ") ||
		!strings.HasSuffix(errs, "; output: -\n") {
		t.Errorf("stderr %q, want a status line and a final summary", errs)
	}
	if strings.Contains(out.String(), "\r") {
		t.Error("progress leaked into the output")
	}
}

func TestCrawlUserAgentFlag(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"default names Hivecrawl, its version and contact", nil, crawler.UserAgent(version, crawler.ContactURL)},
		{"your own crawler's name", []string{"--user-agent", "mybot/1.0 (+https://example.org/bot)"}, "mybot/1.0 (+https://example.org/bot)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			o, _, done := parseCrawlFlags(append(tt.args, "http://a.example/"), io.Discard, &errb)
			if done {
				t.Fatal(errb.String())
			}
			if o.userAgent != tt.want {
				t.Fatalf("user agent %q, want %q", o.userAgent, tt.want)
			}
		})
	}
	if def := crawler.UserAgent(version, crawler.ContactURL); !strings.HasPrefix(def, "Hivecrawl/") || !strings.Contains(def, crawler.ContactURL) {
		t.Fatalf("default user agent %q lacks the name or the contact URL", def)
	}
}
