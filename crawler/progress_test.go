package crawler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// stoppingSink keeps pages and cancels the run after n of them.
type stoppingSink struct {
	memSink
	n      int
	cancel context.CancelFunc
}

func (s *stoppingSink) Page(p *task.Page) error {
	s.memSink.Page(p)
	if len(s.pages) == s.n {
		s.cancel()
	}
	return nil
}

// A run stopped mid-crawl and resumed from its last checkpoint crawls
// every page exactly once across both runs (pages delivered after the
// checkpoint are dropped, as a spool truncated to it drops them), and
// requests no more than the pages since that checkpoint again.
func TestResumeFromCheckpoint(t *testing.T) {
	const n = 60
	s := newSite(t, pages(linkedPages(n)))
	tk := &task.Task{ID: "t", Channel: "c", Seeds: []string{s.URL + "/p0.html"}, MaxDepth: 10, MaxPages: 1000}
	c := New(testConfig(t))

	ctx, cancel := context.WithCancel(context.Background())
	first := &stoppingSink{n: 23, cancel: cancel}
	var last []byte
	var kept int
	// Checkpoints by page count alone: the test asserts where they fall.
	_, err := c.RunFrom(ctx, tk, first, RunOptions{Every: 5, Interval: time.Hour, Checkpoint: func(p *Progress) error {
		b, err := json.Marshal(p)
		last, kept = b, len(first.pages)
		return err
	}})
	if err == nil {
		t.Fatal("the run was not interrupted")
	}
	if kept != 20 {
		t.Fatalf("last checkpoint after %d pages, want 20", kept)
	}
	p, err := DecodeProgress(last)
	if err != nil {
		t.Fatal(err)
	}
	second := &memSink{}
	res, err := New(testConfig(t)).RunFrom(context.Background(), tk, second, RunOptions{Resume: p})
	if err != nil {
		t.Fatal(err)
	}
	deliveredOnce(t, append(first.pages[:kept], second.pages...), n)
	if res.Stats.PagesFetched != n {
		t.Errorf("resumed result counts %d pages fetched, want %d over both runs", res.Stats.PagesFetched, n)
	}
	pageHits := len(s.requests("/p"))
	if pageHits > n+3 {
		t.Errorf("%d page requests for %d pages: more than the 3 after the checkpoint again", pageHits, n)
	}
}

// A continuation task (task.Resume, built from the first volunteer's last
// checkpoint) crawls the pages that volunteer had not: across both, every
// page exactly once. URLs of the rest that the task may not crawl (another
// host, beyond its depth) are dropped, since a rest comes from a volunteer.
func TestContinuationGoesOnFromRest(t *testing.T) {
	const n = 60
	s := newSite(t, pages(linkedPages(n)))
	other := newSite(t, pages(map[string]string{"/x.html": html("elsewhere")}))
	tk := &task.Task{ID: "t", Channel: "c", Seeds: []string{s.URL + "/p0.html"}, MaxDepth: 10, MaxPages: 1000}

	ctx, cancel := context.WithCancel(context.Background())
	first := &stoppingSink{n: 23, cancel: cancel}
	var last *Progress
	var kept int
	_, err := New(testConfig(t)).RunFrom(ctx, tk, first, RunOptions{Every: 5, Checkpoint: func(p *Progress) error {
		last, kept = p, len(first.pages)
		return nil
	}})
	if err == nil || last == nil {
		t.Fatal("the run was not interrupted after a checkpoint")
	}
	rest := last.PassOn()
	if rest == nil {
		t.Fatal("a small crawl's progress gave no rest")
	}
	rest.Todo = append(rest.Todo, task.Pending{URL: other.URL + "/x.html", Depth: 1}, task.Pending{URL: s.URL + "/deep.html", Depth: 11})
	cont := *tk
	cont.ID, cont.Resume = task.ContinuationID(tk.ID), rest
	if err := cont.Validate(); err != nil {
		t.Fatal(err)
	}
	second := &memSink{}
	res, err := New(testConfig(t)).Run(context.Background(), &cont, second)
	if err != nil {
		t.Fatal(err)
	}
	deliveredOnce(t, append(first.pages[:kept], second.pages...), n)
	if len(other.hits) != 0 || len(s.requests("/deep")) != 0 {
		t.Errorf("the continuation fetched URLs its task may not crawl: %d on the other host, %d too deep", len(other.hits), len(s.requests("/deep")))
	}
	if res.Stats.PagesFetched != n-kept {
		t.Errorf("continuation fetched %d pages, want the %d left", res.Stats.PagesFetched, n-kept)
	}
}

func TestContinuationID(t *testing.T) {
	for in, want := range map[string]string{"a/1/0": "a/1/0+2", "a/1/0+2": "a/1/0+3", "a+b/1/0": "a+b/1/0+2", "x+": "x++2"} {
		if got := task.ContinuationID(in); got != want {
			t.Errorf("ContinuationID(%q) = %q, want %q", in, got, want)
		}
	}
}

// linkedPages is a site of n pages, each linking to the next 30 (modulo n).
func linkedPages(n int) map[string]string {
	site := map[string]string{}
	for i := range n {
		var ls []string
		for j := 1; j <= 30; j++ {
			ls = append(ls, fmt.Sprintf("/p%d.html", (i*30+j)%n))
		}
		site[fmt.Sprintf("/p%d.html", i)] = html(links(ls...))
	}
	return site
}

// deliveredOnce checks that ps holds n pages, each once.
func deliveredOnce(t *testing.T, ps []*task.Page, n int) {
	t.Helper()
	got := map[string]int{}
	for _, pg := range ps {
		got[pg.URL]++
	}
	if len(got) != n {
		t.Errorf("%d distinct pages across both runs, want %d", len(got), n)
	}
	for u, k := range got {
		if k != 1 {
			t.Errorf("%s delivered %d times", u, k)
		}
	}
}

// A checkpoint lists URLtodo in order, the part spilled to disk included,
// and leaves it as it was.
func TestFrontierEntriesIncludeSpilled(t *testing.T) {
	f := newFrontier(t.TempDir(), 3)
	defer f.Close()
	for i := range 10 {
		if err := f.Push(entry{URL: fmt.Sprint(i), Depth: i}); err != nil {
			t.Fatal(err)
		}
	}
	f.Pop()
	f.Pop()
	f.Pop()
	f.Pop() // refills from the file
	got, err := f.entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || got[0].URL != "4" || got[5].URL != "9" || got[5].Depth != 9 {
		t.Fatalf("entries %v, want 4…9", got)
	}
	for want := 4; want < 10; want++ {
		e, ok, err := f.Pop()
		if err != nil || !ok || e.URL != fmt.Sprint(want) {
			t.Fatalf("after entries, Pop = %v %v %v, want %d", e, ok, err, want)
		}
	}
}

// A checkpoint read back from a damaged queue either fails to decode or
// resumes a run without panicking.
func FuzzDecodeProgress(f *testing.F) {
	f.Add([]byte(`{"requests":3,"todo":[{"url":"http://example.com/a","depth":1}],"seen":"AAAAAAAAAAE=","hosts":["example.com"],"result":{"task_id":"t","channel":"c"}}`))
	f.Add([]byte(`{"result":{"task_id":"t"},"seen":"AAE="}`))
	f.Add([]byte(`{}`))
	c := New(Config{AllowLoopback: true, TempDir: f.TempDir()})
	tk := &task.Task{ID: "t", Channel: "c", Seeds: []string{"http://example.com/"}, MaxDepth: 2, MaxPages: 10}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeProgress(b)
		if err != nil {
			return
		}
		r, err := c.newRun(tk, &memSink{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.close()
		if err := r.resume(p); err != nil {
			return
		}
		if _, err := r.progress(); err != nil {
			t.Fatal(err)
		}
	})
}

// countingAdmitter records what a run asks to admit.
type countingAdmitter struct {
	mu              sync.Mutex
	asked, released int
	bytes           int64
}

func (a *countingAdmitter) Admit(ctx context.Context, n int64) (func(), error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked++
	a.bytes += n
	return func() { a.mu.Lock(); a.released++; a.mu.Unlock() }, nil
}

// Every page's parse is admitted against the memory budget at its
// ParseCost, and given back.
func TestParsesAdmitted(t *testing.T) {
	body := html(links("/a", "/b"))
	s := newSite(t, pages(map[string]string{"/": body, "/a": body, "/b": body}))
	cfg := testConfig(t)
	a := &countingAdmitter{}
	cfg.Admit = a
	if _, err := New(cfg).Run(context.Background(), &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1}, &memSink{}); err != nil {
		t.Fatal(err)
	}
	if a.asked != 3 || a.released != 3 || a.bytes != 3*ParseCost(len(body)) {
		t.Errorf("admitted %d parses (%d bytes), released %d; want 3 at ParseCost %d each", a.asked, a.bytes, a.released, ParseCost(len(body)))
	}
}

// outlookSink records the crawl's frontier as each page arrives.
type outlookSink struct {
	f                         *Frontier
	requests, waiting, budget []int
}

func (s *outlookSink) Page(*task.Page) error {
	r, w, b := s.f.Outlook()
	s.requests, s.waiting, s.budget = append(s.requests, r), append(s.waiting, w), append(s.budget, b)
	return nil
}

// TestFrontierOutlook: before each request the crawl says how many URLs
// wait and how many requests its page limit leaves.
func TestFrontierOutlook(t *testing.T) {
	s := newSite(t, pages(map[string]string{
		"/":  html(links("/a", "/b", "/c", "/d")),
		"/a": html("<p>a</p>"),
		"/b": html("<p>b</p>"),
		"/c": html("<p>c</p>"),
		"/d": html("<p>d</p>"),
	}))
	sink := &outlookSink{f: &Frontier{}}
	ctx := WithFrontier(context.Background(), sink.f)
	if _, err := New(testConfig(t)).Run(ctx, &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1, MaxPages: 4}, sink); err != nil {
		t.Fatal(err)
	}
	// The index: the seed alone waited, 4 requests left. Then its 4 links
	// wait, one fewer before each page; the limit of 4 leaves 3, 2, 1.
	want := "[0 1 2 3] [1 4 3 2] [4 3 2 1]"
	if got := fmt.Sprint(sink.requests, sink.waiting, sink.budget); got != want {
		t.Fatalf("requests, waiting, budget %s; want %s", got, want)
	}
}

// interruptAfter runs tk until its sink has n pages, checkpointing after
// every page, and returns the last checkpoint as stored and decoded again.
func interruptAfter(t *testing.T, tk *task.Task, n int) *Progress {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last []byte
	_, err := New(testConfig(t)).RunFrom(ctx, tk, &stoppingSink{n: n, cancel: cancel}, RunOptions{Every: 1, Checkpoint: func(p *Progress) error {
		b, err := json.Marshal(p)
		last = b
		return err
	}})
	if err == nil || last == nil {
		t.Fatalf("the run was not interrupted after a checkpoint: %v", err)
	}
	p, err := DecodeProgress(last)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A run resumed from a checkpoint keeps the robots.txt its first run had
// (RFC 9309 lets a copy serve a day): it does not ask for it again, and
// its rules still hold. A copy a day old is asked again.
func TestResumeKeepsRobots(t *testing.T) {
	m := linkedPages(20)
	// The last page crawled links a disallowed one: the resumed run meets it.
	m["/p19.html"] = strings.Replace(m["/p19.html"], "<body>", `<body><a href="/private/x.html">x</a>`, 1)
	m["/private/x.html"] = html("private")
	pagesOf := pages(m)
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			return
		}
		pagesOf.ServeHTTP(w, r)
	}))
	tk := &task.Task{ID: "t", Channel: "c", Seeds: []string{s.URL + "/p0.html"}, MaxDepth: 30, MaxPages: 1000}
	robotsAsked := func() int { return len(s.requests("/robots.txt")) }

	p := interruptAfter(t, tk, 5)
	if len(p.Robots) != 1 || p.Robots[0].Status != http.StatusOK || !strings.Contains(string(p.Robots[0].Body), "Disallow") {
		t.Fatalf("the checkpoint kept robots.txt as %+v", p.Robots)
	}
	if _, err := New(testConfig(t)).RunFrom(context.Background(), tk, &memSink{}, RunOptions{Resume: p}); err != nil {
		t.Fatal(err)
	}
	if n := robotsAsked(); n != 1 {
		t.Errorf("robots.txt asked %d times over a run and its resumption, want once", n)
	}
	if n := len(s.requests("/private/")); n != 0 {
		t.Errorf("the resumed run fetched %d disallowed pages", n)
	}

	// A day later the copy is stale: asked again.
	p.Robots[0].Fetched = p.Robots[0].Fetched.Add(-RobotsTTL)
	if _, err := New(testConfig(t)).RunFrom(context.Background(), tk, &memSink{}, RunOptions{Resume: p}); err != nil {
		t.Fatal(err)
	}
	if n := robotsAsked(); n != 2 {
		t.Errorf("robots.txt asked %d times after a day-old copy, want 2", n)
	}

}

// A checkpoint keeps a robots.txt file or a definite "none", never a
// failure (which a resumed run asks about again) nor a file too large to
// carry in every checkpoint.
func TestKeptRobots(t *testing.T) {
	small, large := []byte("User-agent: *\nDisallow: /x\n"), make([]byte, maxKeptRobots+1)
	for _, c := range []struct {
		status int
		body   []byte
		kept   bool
	}{
		{http.StatusOK, small, true},
		{http.StatusOK, large, false},
		{http.StatusNotFound, nil, true},
		{http.StatusTooManyRequests, nil, false},
		{http.StatusServiceUnavailable, nil, false},
		{0, nil, false}, // unreachable
	} {
		got := keptRobots("http://h.test", c.status, c.body, robotsForStatus(c.status, c.body, "hivecrawl"), time.Now())
		if (got != nil) != c.kept {
			t.Errorf("status %d, %d bytes: kept %v, want %v", c.status, len(c.body), got != nil, c.kept)
		}
	}
}

// A run checkpoints by time as well as by pages: with Interval shorter
// than a page, after every page whatever Every says; with a long one, by
// Every alone.
func TestCheckpointByTime(t *testing.T) {
	const n = 12
	s := newSite(t, pages(linkedPages(n)))
	tk := &task.Task{ID: "t", Channel: "c", Seeds: []string{s.URL + "/p0.html"}, MaxDepth: 30, MaxPages: 1000}
	count := func(opts RunOptions) int {
		var c int
		opts.Checkpoint = func(*Progress) error { c++; return nil }
		if _, err := New(testConfig(t)).RunFrom(context.Background(), tk, &memSink{}, opts); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := count(RunOptions{Every: 100, Interval: time.Nanosecond}); c != n {
		t.Errorf("%d checkpoints over %d pages with a 1 ns interval, want one a page", c, n)
	}
	if c := count(RunOptions{Every: 5, Interval: time.Hour}); c != n/5 {
		t.Errorf("%d checkpoints over %d pages every 5 pages, want %d", c, n, n/5)
	}
}

// A checkpoint's result carries what the host asked (its Crawl-delay) and
// where it answered from, as the run's end result does: a result cut short
// at a checkpoint (a volunteer leaving) tells the manager the wait the next
// crawler of the host must keep.
func TestCheckpointCarriesHostAsks(t *testing.T) {
	m := linkedPages(6)
	pagesOf := pages(m)
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nCrawl-delay: 3\n"))
			return
		}
		pagesOf.ServeHTTP(w, r)
	}))
	p := interruptAfter(t, &task.Task{ID: "t", Channel: "c", Seeds: []string{s.URL + "/p0.html"}, MaxDepth: 30, MaxPages: 1000}, 1)
	if got := time.Duration(p.Result.HostWait); got < 3*time.Second {
		t.Errorf("the checkpoint's result says the host asked for %v between requests, want 3s", got)
	}
	if len(p.Result.HostAddrs) == 0 {
		t.Error("the checkpoint's result names no address the host answered from")
	}
}

// A run keeps its robots.txt no longer than RobotsTTL (RFC 9309 §2.4):
// a crawl still going a day after it read the file asks for it again
// before its next page, and obeys the file the site has now. Before, a
// run kept its first copy to its end (16 h for 10,000 pages at 1 s, days
// under a long Crawl-delay), and a resumed run kept a copy it adopted
// at 23 h for the rest of its crawl.
func TestRobotsAskedAgainADayLater(t *testing.T) {
	const n, turn = 20, 5
	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var (
		offset atomic.Int64 // how far the crawler's clock has moved
		served atomic.Int64 // pages served
	)
	pagesOf := pages(linkedPages(n))
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if offset.Load() == 0 {
				w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			} else {
				w.Write([]byte("User-agent: *\nDisallow: /\n")) // the site changed its mind
			}
			return
		}
		if served.Add(1) == turn {
			offset.Store(int64(RobotsTTL)) // a day passes during this page
		}
		pagesOf.ServeHTTP(w, r)
	}))
	c := New(testConfig(t))
	c.now = func() time.Time { return base.Add(time.Duration(offset.Load())) }
	tk := &task.Task{ID: "t", Channel: "c", Seeds: []string{s.URL + "/p0.html"}, MaxDepth: 30, MaxPages: 1000}
	if _, err := c.Run(context.Background(), tk, &memSink{}); err != nil {
		t.Fatal(err)
	}
	if got := len(s.requests("/robots.txt")); got != 2 {
		t.Errorf("robots.txt asked %d times, want twice: once at the start, once a day later", got)
	}
	if got := len(s.pagePaths()); got != turn {
		t.Errorf("%d pages fetched, want %d: none after the day-old copy's successor disallowed them", got, turn)
	}
}
