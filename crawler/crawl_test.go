package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

func TestOneConnectionFor200Pages(t *testing.T) {
	m := map[string]string{}
	var all []string
	for i := range 199 {
		p := fmt.Sprintf("/p/%d", i)
		all = append(all, p)
		m[p] = html(fmt.Sprintf("<p>Page %d has some words.</p>", i))
	}
	m["/"] = html(links(all...))
	s := newSite(t, pages(m))
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	if res.Stats.PagesFetched != 200 || len(sink.pages) != 200 {
		t.Fatalf("fetched %d pages, sink got %d, want 200", res.Stats.PagesFetched, len(sink.pages))
	}
	s.checkOneConnection(t)
	if got := len(s.requests("/")); got != 201 {
		t.Fatalf("server saw %d requests, want 201 (robots.txt + 200 pages)", got)
	}
	if res.Stats.PagesNew != 200 || res.Stats.BytesDown == 0 || res.Stats.Dirs["/p/"] != 199 || res.Stats.Dirs["/"] != 1 {
		t.Fatalf("stats = %+v", res.Stats)
	}
}

// spacing returns the smallest gap between consecutive hits.
func spacing(hits []hit) time.Duration {
	gap := time.Duration(1<<62 - 1)
	for i := 1; i < len(hits); i++ {
		gap = min(gap, hits[i].At.Sub(hits[i-1].At))
	}
	return gap
}

func TestPolitenessWait(t *testing.T) {
	const delay = 150 * time.Millisecond
	for _, tc := range []struct {
		name   string
		robots string
		cfg    time.Duration
		task   time.Duration
		want   time.Duration
	}{
		{"task delay", "", 0, delay, delay},
		{"config delay", "", delay, 0, delay},
		{"config shorter than the task's cannot speed up", "", time.Millisecond, delay, delay},
		{"config longer than the task's slows down", "", 2 * delay, delay, 2 * delay},
		{"crawl-delay raises the wait", "user-agent: *\ncrawl-delay: 0.3\n", 0, 50 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]string{"/": html(links("/a", "/b", "/c")), "/a": html("a"), "/b": html("b"), "/c": html("c")}
			if tc.robots != "" {
				m["/robots.txt"] = tc.robots
			}
			s := newSite(t, pages(m))
			cfg := testConfig(t)
			cfg.Delay = tc.cfg
			res, _ := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1, Delay: task.Duration(tc.task)})
			hits := s.requests("/")
			if len(hits) != 5 {
				t.Fatalf("server saw %d requests, want 5", len(hits))
			}
			const tolerance = 5 * time.Millisecond
			if gap := spacing(hits); gap < tc.want-tolerance {
				t.Fatalf("requests %v apart, want at least %v", gap, tc.want)
			}
			if res.Stats.Wait <= 0 {
				t.Fatalf("no politeness wait recorded: %+v", res.Stats)
			}
		})
	}
}

func TestRetryAfterBackoff(t *testing.T) {
	var calls int
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, html("fine now"))
	})
	mux.HandleFunc("/robots.txt", http.NotFound)
	s := newSite(t, mux)
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}})
	hits := s.requests("/")
	if len(hits) != 3 {
		t.Fatalf("server saw %d requests, want robots + 2 tries", len(hits))
	}
	if gap := hits[2].At.Sub(hits[1].At); gap < time.Second-5*time.Millisecond {
		t.Fatalf("retried after %v, want at least the 1 s Retry-After", gap)
	}
	if p := sink.byURL(s.URL + "/"); p == nil || p.Status != 200 || res.Stats.PagesFetched != 1 {
		t.Fatalf("page after retry = %+v", p)
	}
}

func TestConsecutiveFailuresStopTask(t *testing.T) {
	m := map[string]string{"/": html(links("/a", "/b", "/c", "/d", "/e"))}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := m[r.URL.Path]; ok || r.URL.Path == "/robots.txt" {
			pages(m).ServeHTTP(w, r)
			return
		}
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	s := newSite(t, h)
	cfg := testConfig(t)
	cfg.MaxFailures = 3
	res, _ := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	if !strings.Contains(res.Stopped, "consecutive failures") {
		t.Fatalf("Stopped = %q, want consecutive failures", res.Stopped)
	}
	if got := len(s.requests("/")) - 2; got != 3 {
		t.Fatalf("requested %d failing pages, want 3", got)
	}
	if res.Stats.Errors["http_500"] != 3 {
		t.Fatalf("errors = %v", res.Stats.Errors)
	}
}

func TestRobotsInRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		robots  http.HandlerFunc
		fetched []string
		stopped string
	}{
		{"200 with rules", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "user-agent: *\ndisallow: /private\n")
		}, []string{"/", "/open"}, ""},
		{"404 allows all", http.NotFound, []string{"/", "/open", "/private"}, ""},
		{"429 disallows all", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTooManyRequests)
		}, nil, "robots.txt unavailable"},
		{"500 disallows all", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		}, nil, "robots.txt unavailable"},
		{"unreachable disallows all", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, nil, "unreachable: 127.0.0.1 closed the connection without answering"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]string{"/": html(links("/open", "/private")), "/open": html("o"), "/private": html("p")}
			mux := http.NewServeMux()
			mux.Handle("/", pages(m))
			mux.Handle("/robots.txt", tc.robots)
			s := newSite(t, mux)
			res, _ := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
			got := s.pagePaths()
			if fmt.Sprint(got) != fmt.Sprint(tc.fetched) {
				t.Fatalf("fetched %v, want %v", got, tc.fetched)
			}
			if res.Stopped != tc.stopped {
				t.Fatalf("Stopped = %q, want %q", res.Stopped, tc.stopped)
			}
		})
	}
}

func TestManyLinksKeepURLtodoBounded(t *testing.T) {
	var b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&b, `<a href="/l/%d">x</a>`, i)
	}
	s := newSite(t, pages(map[string]string{"/": html(b.String())}))
	c := New(testConfig(t))
	r, err := c.newRun(&task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1, MaxPages: 3}, &memSink{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if err := r.crawl(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.todo.PeakInMemory() > memEntries {
		t.Fatalf("URLtodo held %d entries in memory, max %d", r.todo.PeakInMemory(), memEntries)
	}
	// Of the first MaxPageLinks links, the URLtodo keeps what the task could
	// still fetch, twice over and at least minTodoRoom; two were crawled.
	if r.todo.Len() != minTodoRoom-2 {
		t.Fatalf("URLtodo has %d entries, want %d", r.todo.Len(), minTodoRoom-2)
	}
	if r.res.Stopped != "max pages" {
		t.Fatalf("Stopped = %q", r.res.Stopped)
	}
}

// TestCheckpointsStayBounded: a host whose every page links hundreds of
// new URLs does not grow the URLtodo, which each checkpoint holds whole in
// memory, past what the task could still fetch.
func TestCheckpointsStayBounded(t *testing.T) {
	var n atomic.Int64
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		for range 500 {
			fmt.Fprintf(&b, `<a href="/p/%d">x</a>`, n.Add(1))
		}
		fmt.Fprint(w, html(b.String()))
	}))
	const maxPages = 40
	largest := 0
	opts := RunOptions{Every: 5, Checkpoint: func(p *Progress) error {
		largest = max(largest, len(p.Todo))
		return nil
	}}
	c := New(testConfig(t))
	if _, err := c.RunFrom(context.Background(), &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 5, MaxPages: maxPages}, &memSink{}, opts); err != nil {
		t.Fatal(err)
	}
	if largest == 0 || largest > max(2*maxPages, minTodoRoom) {
		t.Fatalf("a checkpoint held %d URLs to do; want some, at most %d", largest, max(2*maxPages, minTodoRoom))
	}
}

func TestPageseenAndConditionalGet(t *testing.T) {
	const same = "<p>Same as last time, a paragraph of text.</p>"
	m := map[string]string{"/": html(links("/same", "/etag", "/new")), "/same": html(same), "/new": html("<p>brand new</p>")}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/etag" {
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v2"`)
			fmt.Fprint(w, html("changed"))
			return
		}
		pages(m).ServeHTTP(w, r)
	})
	s := newSite(t, h)
	tk := &task.Task{
		Seeds: []string{s.URL + "/"}, MaxDepth: 1,
		KnownPages: []task.Digest{task.DigestString(html(same))},
		Validators: []task.Validator{{URL: s.URL + "/etag", ETag: `"v1"`}},
	}
	res, sink := runTask(t, testConfig(t), tk)
	for _, path := range []string{"/same", "/etag"} {
		p := sink.byURL(s.URL + path)
		if p == nil || !p.Unchanged || len(p.Text) != 0 || p.TextBytes != 0 {
			t.Fatalf("%s = %+v, want unchanged with no text", path, p)
		}
	}
	if p := sink.byURL(s.URL + "/etag"); p.Status != 304 || p.ETag != `"v1"` {
		t.Fatalf("/etag = %+v, want 304 keeping its validator", p)
	}
	p := sink.byURL(s.URL + "/new")
	if p == nil || p.Unchanged || p.Compression != textcodec.Dict1 || p.TextBytes == 0 {
		t.Fatalf("/new = %+v, want new text", p)
	}
	text, err := textcodec.Decode(p.Text, p.Compression)
	if err != nil || !strings.Contains(string(text), "brand new") || len(text) != p.TextBytes {
		t.Fatalf("/new text = %q, %v", text, err)
	}
	st := res.Stats
	if st.PagesFetched != 4 || st.PagesUnchanged != 2 || st.PagesNew != 2 || st.PagesChanged != 0 {
		t.Fatalf("stats = %+v", st)
	}
}

// TestPageseenFilter: a task of a large channel carries Pageseen as a
// Bloom filter; a page whose digest it holds is unchanged, others are new.
func TestPageseenFilter(t *testing.T) {
	const same = "<p>Same as last time, a paragraph of text.</p>"
	m := map[string]string{"/": html(links("/same", "/new")), "/same": html(same), "/new": html("<p>brand new</p>")}
	s := newSite(t, pages(m))
	f := task.NewFilter(10_000, task.DefaultFalsePositive)
	f.Add(task.DigestString(html(same)))
	for i := range 9_999 {
		f.Add(task.DigestString(fmt.Sprint("other page ", i)))
	}
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1, KnownFilter: f})
	if p := sink.byURL(s.URL + "/same"); p == nil || !p.Unchanged || len(p.Text) != 0 {
		t.Fatalf("/same = %+v, want unchanged with no text", p)
	}
	if p := sink.byURL(s.URL + "/new"); p == nil || p.Unchanged || p.TextBytes == 0 {
		t.Fatalf("/new = %+v, want new text", p)
	}
	if st := res.Stats; st.PagesUnchanged != 1 || st.PagesNew != 2 {
		t.Fatalf("stats = %+v, want 1 unchanged, 2 new", st)
	}
}

func TestChangedPage(t *testing.T) {
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", `"v2"`)
		fmt.Fprint(w, html("<p>new words</p>"))
	}))
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"},
		Validators: []task.Validator{{URL: s.URL + "/", ETag: `"v1"`}}})
	if res.Stats.PagesChanged != 1 || res.Stats.PagesNew != 0 {
		t.Fatalf("stats = %+v, want one changed page", res.Stats)
	}
	if p := sink.pages[0]; p.ETag != `"v2"` || p.Unchanged {
		t.Fatalf("page = %+v", p)
	}
}

func TestFirewallMode(t *testing.T) {
	m := map[string]string{
		"/":   html(links("/in", "http://other.example/a#frag", "http://known.example/b", "https://other.example/a")),
		"/in": html(links("http://other.example/a")),
	}
	s := newSite(t, pages(m))
	res, _ := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 2,
		KnownInterSite: []task.Digest{task.DigestString("http://known.example/b")}})
	want := []string{"http://other.example/a", "https://other.example/a"}
	if fmt.Sprint(res.InterSite) != fmt.Sprint(want) {
		t.Fatalf("InterSite = %v, want %v", res.InterSite, want)
	}
	if res.Stats.PagesFetched != 2 {
		t.Fatalf("fetched %d pages, want 2 (no other host followed)", res.Stats.PagesFetched)
	}
}

func TestFiltersDepthAndMaxPages(t *testing.T) {
	m := map[string]string{
		"/":       html(links("/keep/1", "/drop/1")),
		"/keep/1": html(links("/keep/2")),
		"/keep/2": html(links("/keep/3")),
		"/keep/3": html("deep"),
		"/drop/1": html("no"),
	}
	for _, tc := range []struct {
		name    string
		tk      task.Task
		want    []string
		stopped string
	}{
		{"filter keeps matching URLs, seed exempt", task.Task{Filters: []string{`/keep/`}, MaxDepth: 5},
			[]string{"/", "/keep/1", "/keep/2", "/keep/3"}, ""},
		{"no filter", task.Task{MaxDepth: 1}, []string{"/", "/keep/1", "/drop/1"}, ""},
		{"depth 2", task.Task{Filters: []string{`/keep/`}, MaxDepth: 2}, []string{"/", "/keep/1", "/keep/2"}, ""},
		{"max pages", task.Task{MaxDepth: 5, MaxPages: 2}, []string{"/", "/keep/1"}, "max pages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, pages(m))
			tk := tc.tk
			tk.Seeds = []string{s.URL + "/"}
			res, _ := runTask(t, testConfig(t), &tk)
			got := s.pagePaths()
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("fetched %v, want %v", got, tc.want)
			}
			if res.Stopped != tc.stopped {
				t.Fatalf("Stopped = %q, want %q", res.Stopped, tc.stopped)
			}
		})
	}
}

func TestRobotsDirectives(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, html(links("/noindex", "/nofollow", "/header")+`<a rel="nofollow" href="/relnf">x</a>`))
		case "/noindex":
			fmt.Fprint(w, `<html><head><meta name="robots" content="noindex"></head><body><p>secret text</p>`+links("/from-noindex")+`</body></html>`)
		case "/nofollow":
			fmt.Fprint(w, `<html><head><meta name="robots" content="nofollow"></head><body><p>visible text</p>`+links("/from-nofollow")+`</body></html>`)
		case "/header":
			w.Header().Set("X-Robots-Tag", "noindex, nofollow")
			fmt.Fprint(w, html("<p>header text</p>"+links("/from-header")))
		case "/from-noindex":
			fmt.Fprint(w, html("ok"))
		default:
			http.NotFound(w, r)
		}
	})
	s := newSite(t, h)
	_, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 3})
	var got []string
	for _, h := range s.requests("") {
		got = append(got, h.Path)
	}
	want := "[/robots.txt / /noindex /nofollow /header /from-noindex]"
	if fmt.Sprint(got) != want {
		t.Fatalf("fetched %v, want %s", got, want)
	}
	for path, noindex := range map[string]bool{"/noindex": true, "/header": true, "/nofollow": false} {
		p := sink.byURL(s.URL + path)
		if p.NoIndex != noindex || (len(p.Text) == 0) != noindex {
			t.Fatalf("%s: NoIndex %v with %d text bytes, want NoIndex %v", path, p.NoIndex, len(p.Text), noindex)
		}
	}
}

func TestLimiterSeesBytes(t *testing.T) {
	m := map[string]string{"/": html(links("/a", "/b")), "/a": html(strings.Repeat("<p>lorem ipsum</p>", 2000)), "/b": html("b")}
	s := newSite(t, pages(m))
	cfg := testConfig(t)
	lim := &countingLimiter{}
	cfg.Limiter = lim
	res, _ := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	if lim.n.Load() != res.Stats.BytesDown || lim.n.Load() < int64(len(m["/a"])) {
		t.Fatalf("limiter saw %d bytes, crawl read %d, page /a alone is %d", lim.n.Load(), res.Stats.BytesDown, len(m["/a"]))
	}
	if lim.maxN.Load() > ReadChunk {
		t.Fatalf("limiter asked for %d bytes at once, more than ReadChunk", lim.maxN.Load())
	}
}

func TestContextCancelStopsPromptly(t *testing.T) {
	arrived := make(chan struct{})
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.(http.Flusher).Flush()
		close(arrived)
		<-r.Context().Done() // hang until the client goes away
	}))
	cfg := testConfig(t)
	cfg.PageTimeout = time.Hour // only cancellation can end this run
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	res, err := New(cfg).Run(ctx, &task.Task{ID: "t", Seeds: []string{s.URL + "/"}}, &memSink{})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("Run = %v, %v, want context.Canceled with a partial result", res, err)
	}
}

func TestRunRejects(t *testing.T) {
	c := New(testConfig(t))
	for _, tc := range []struct {
		name string
		tk   *task.Task
	}{
		{"no usable seed", &task.Task{ID: "t", Seeds: []string{"mailto:a@b", "::"}}},
		{"bad filter", &task.Task{ID: "t", Seeds: []string{"http://h/"}, Filters: []string{"("}}},
		{"nil task", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.Run(context.Background(), tc.tk, &memSink{}); err == nil {
				t.Fatal("Run accepted a task it cannot crawl")
			}
		})
	}
}

func TestSpoolSink(t *testing.T) {
	s := newSite(t, pages(map[string]string{"/": html(links("/a")), "/a": html("<p>a text</p>")}))
	path := t.TempDir() + "/spool"
	sp, err := OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(testConfig(t)).Run(context.Background(), &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1}, sp); err != nil {
		t.Fatal(err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	var urls []string
	if err := ReadSpool(path, func(p *task.Page) error { urls = append(urls, p.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(urls) != fmt.Sprint([]string{s.URL + "/", s.URL + "/a"}) {
		t.Fatalf("spool holds %v", urls)
	}
}

func TestConditionalGetForEveryKnownPage(t *testing.T) {
	// Every listed page is asked for with its validators, whatever its
	// depth; a 304 ends there, and the pages below it come from the list.
	var conditional, full []string
	site := pages(map[string]string{
		"/":     html(links("/mid", "/new")),
		"/mid":  html(links("/leaf")),
		"/leaf": html("leaf"),
		"/new":  html("new"),
	})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			site.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("If-None-Match") == `"v"` && r.URL.Path != "/" {
			conditional = append(conditional, r.URL.Path)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full = append(full, r.URL.Path)
		w.Header().Set("ETag", `"v2"`)
		site.ServeHTTP(w, r)
	})
	s := newSite(t, h)
	vs := []task.Validator{
		{URL: s.URL + "/", ETag: `"v"`},
		{URL: s.URL + "/mid", ETag: `"v"`, Depth: 1},
		{URL: s.URL + "/leaf", ETag: `"v"`, Depth: 2},
	}
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 2, Validators: vs})
	if fmt.Sprint(conditional) != "[/mid /leaf]" {
		t.Fatalf("304s for %v, want /mid and /leaf", conditional)
	}
	if fmt.Sprint(full) != "[/ /new]" {
		t.Fatalf("full downloads %v, want the changed index page and the new page it links to", full)
	}
	for p, depth := range map[string]int{"/mid": 1, "/leaf": 2} {
		if pg := sink.byURL(s.URL + p); pg == nil || pg.Status != 304 || !pg.Unchanged || pg.Depth != depth {
			t.Fatalf("%s = %+v, want unchanged at its listed depth", p, pg)
		}
	}
	if p := sink.byURL(s.URL + "/new"); p == nil || p.Parent != task.DigestString(s.URL+"/") {
		t.Fatalf("/new = %+v, want its parent to be the index page", p)
	}
	if res.Stats.PagesUnchanged != 2 || res.Stats.PagesChanged != 1 || res.Stats.PagesNew != 1 {
		t.Fatalf("stats = %+v", res.Stats)
	}
}

func TestSkipLeavesKnownPagesAlone(t *testing.T) {
	var got []string
	site := pages(map[string]string{
		"/":      html(links("/due", "/later", "/new")),
		"/due":   html("due"),
		"/later": html("later"),
		"/new":   html("new"),
	})
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path)
		site.ServeHTTP(w, r)
	}))
	skip := task.NewFilter(1, task.DefaultFalsePositive)
	skip.Add(task.DigestString(s.URL + "/later"))
	_, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1, Skip: skip,
		Validators: []task.Validator{{URL: s.URL + "/due", Depth: 1}}})
	if fmt.Sprint(got) != "[/robots.txt / /due /new]" {
		t.Fatalf("requests %v, want the skipped page left alone", got)
	}
	if sink.byURL(s.URL+"/later") != nil {
		t.Fatal("a skipped page was reported")
	}
}
