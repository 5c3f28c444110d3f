package manager

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/indexnow"
	"github.com/hivecrawl/hivecrawl/task"
)

const inKey = "site-key-1234"

// keySite is a web site that serves IndexNow key files and records the
// requests for them.
type keySite struct {
	*httptest.Server
	host  string
	mu    sync.Mutex
	files map[string]string // path → body
	log   []string          // "path UA" of each request
}

func newKeySite(t *testing.T) *keySite {
	t.Helper()
	s := &keySite{files: map[string]string{"/" + inKey + ".txt": inKey + "\n"}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.URL.Path+" "+r.UserAgent())
		body, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if to, moved := strings.CutPrefix(body, "redirect "); moved {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	s.host = strings.TrimPrefix(s.URL, "http://")
	return s
}

func (s *keySite) set(path, body string) {
	s.mu.Lock()
	s.files[path] = body
	s.mu.Unlock()
}

// fetched counts the requests for path.
func (s *keySite) fetched(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.log {
		if strings.HasPrefix(l, path+" ") {
			n++
		}
	}
	return n
}

// newIndexNowManager starts a manager taking IndexNow submissions, with a
// channel for each site.
func newIndexNowManager(t *testing.T, clk *clock, allowLoopback bool, sites ...*keySite) *Manager {
	t.Helper()
	m, err := New(context.Background(), Options{
		Dir:           t.TempDir(),
		Listen:        []string{"/ip4/127.0.0.1/tcp/0"},
		AllowLoopback: allowLoopback,
		Now:           clk.now,
		Logger:        quiet,
		Version:       "1.2.3",
		Schedule:      ScheduleOptions{Strategy: StrategyFixed},
		Site:          SiteOptions{IndexNow: "127.0.0.1:0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	go m.inow.Serve()
	for _, s := range sites {
		if _, err := m.AddSeeds([]string{s.URL + "/"}); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// pushURLs sends an IndexNow submission: GET with query when body is nil
// and method GET, else method with body (marshalled unless a string).
func pushURLs(t *testing.T, m *Manager, method, query string, body any) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = strings.NewReader(string(raw))
	}
	req, err := http.NewRequest(method, m.IndexNowURL()+query, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(out)
}

func TestIndexNowAnswers(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	site, elsewhere := newKeySite(t), newKeySite(t)
	m := newIndexNowManager(t, clk, true, site)
	site.set("/"+"wrong-key-1234.txt", "another-key-5678\n")
	site.set("/catalog/k.txt", inKey)
	site.set("/moved/k.txt", "redirect "+elsewhere.URL+"/k.txt")
	site.set("/same/k.txt", "redirect /catalog/k.txt")
	elsewhere.set("/k.txt", inKey)

	q := func(u, key string) string {
		return "?" + url.Values{"url": {u}, "key": {key}}.Encode()
	}
	many := make([]string, indexnow.MaxURLs+1)
	for i := range many {
		many[i] = fmt.Sprintf("%s/p%d", site.URL, i)
	}
	tests := []struct {
		name, method, query string
		body                any
		want                int
	}{
		{"GET, key file at the root", "GET", q(site.URL+"/a", inKey), nil, http.StatusOK},
		{"POST", "POST", "", indexnow.Request{Host: "127.0.0.1", Key: inKey, URLs: []string{site.URL + "/b", site.URL + "/c"}}, http.StatusOK},
		{"key file in a directory, URL inside it", "POST", "", indexnow.Request{Key: inKey, KeyLocation: site.URL + "/catalog/k.txt", URLs: []string{site.URL + "/catalog/d"}}, http.StatusOK},
		{"key file missing", "GET", q(site.URL+"/a", "missing-key-1234"), nil, http.StatusForbidden},
		{"key file holding another key", "GET", q(site.URL+"/a", "wrong-key-1234"), nil, http.StatusForbidden},
		{"key file redirected on its host", "POST", "", indexnow.Request{Key: inKey, KeyLocation: site.URL + "/same/k.txt", URLs: []string{site.URL + "/same/h"}}, http.StatusOK},
		{"key file redirected to another host", "POST", "", indexnow.Request{Key: inKey, KeyLocation: site.URL + "/moved/k.txt", URLs: []string{site.URL + "/moved/e"}}, http.StatusForbidden},
		{"URL outside the key file's directory", "POST", "", indexnow.Request{Key: inKey, KeyLocation: site.URL + "/catalog/k.txt", URLs: []string{site.URL + "/f"}}, http.StatusUnprocessableEntity},
		{"URLs on two hosts", "POST", "", indexnow.Request{Key: inKey, URLs: []string{site.URL + "/g", elsewhere.URL + "/g"}}, http.StatusUnprocessableEntity},
		{"key file on another host", "POST", "", indexnow.Request{Key: inKey, KeyLocation: elsewhere.URL + "/k.txt", URLs: []string{site.URL + "/g"}}, http.StatusUnprocessableEntity},
		{"a host this crawler does not crawl", "GET", q(elsewhere.URL+"/a", inKey), nil, http.StatusUnprocessableEntity},
		{"key too short", "GET", q(site.URL+"/a", "short"), nil, http.StatusBadRequest},
		{"key with other characters", "GET", q(site.URL+"/a", "site_key_1234"), nil, http.StatusBadRequest},
		{"no url", "GET", "?key=" + inKey, nil, http.StatusBadRequest},
		{"not JSON", "POST", "", "url=" + site.URL, http.StatusBadRequest},
		{"too many URLs", "POST", "", indexnow.Request{Key: inKey, URLs: many}, http.StatusBadRequest},
		{"body too large", "POST", "", `{"key":"` + inKey + `","urlList":["` + strings.Repeat("x", indexnow.MaxBody) + `"]}`, http.StatusRequestEntityTooLarge},
		{"another method", "PUT", "", "{}", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := pushURLs(t, m, tt.method, tt.query, tt.body)
			if code != tt.want {
				t.Fatalf("%s = %d %s, want %d", tt.method, code, body, tt.want)
			}
		})
	}

	c, err := m.db.Get(site.host)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.Pushed.URLs {
		got = append(got, p.URL)
	}
	want := []string{site.URL + "/a", site.URL + "/b", site.URL + "/c", site.URL + "/catalog/d", site.URL + "/same/h"}
	if !slices.Equal(got, want) || !c.CrawlSoon {
		t.Fatalf("channel holds %v (crawl soon %v), want the accepted URLs %v", got, c.CrawlSoon, want)
	}
	select {
	case <-m.wake:
	default:
		t.Fatal("accepted URLs did not wake the scheduler")
	}
	// The key file is fetched once while verified, with the operator's
	// User-Agent.
	if n := site.fetched("/" + inKey + ".txt"); n != 1 {
		t.Errorf("the key file was fetched %d times, want once", n)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if ua := strings.TrimPrefix(site.log[0], "/"+inKey+".txt "); ua != m.opts.Politeness.Policy.UserAgent || !strings.HasPrefix(ua, "Hivecrawl/1.2.3") {
		t.Errorf("key file fetched as %q, want the operator's User-Agent %q", ua, m.opts.Politeness.Policy.UserAgent)
	}
	if elsewhere.fetched("/k.txt") != 0 {
		t.Error("the key file was fetched from the host a redirect named")
	}
}

// A verified key is trusted for a day; then its file is fetched again,
// and a site that took it down is refused.
func TestIndexNowKeyTrustedForADay(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	site := newKeySite(t)
	m := newIndexNowManager(t, clk, true, site)
	body := indexnow.Request{Key: inKey, URLs: []string{site.URL + "/a"}}
	path := "/" + inKey + ".txt"
	for i, step := range []struct {
		after   time.Duration
		file    string
		want    int
		fetches int
	}{
		{0, inKey, http.StatusOK, 1},
		{time.Hour, "", http.StatusOK, 1}, // taken down, still trusted
		{indexnow.DefaultVerifiedFor, "", http.StatusForbidden, 2},
		{time.Minute, inKey, http.StatusOK, 3},
	} {
		clk.add(step.after)
		if step.file == "" {
			site.mu.Lock()
			delete(site.files, path)
			site.mu.Unlock()
		} else {
			site.set(path, step.file)
		}
		if code, _, out := pushURLs(t, m, "POST", "", body); code != step.want {
			t.Fatalf("submission %d = %d %s, want %d", i+1, code, out, step.want)
		}
		if n := site.fetched(path); n != step.fetches {
			t.Fatalf("after submission %d the key file was fetched %d times, want %d", i+1, n, step.fetches)
		}
	}
}

// A host submitting faster than its limit is told to wait, for as long
// as a submission takes to come back.
func TestIndexNowRateLimited(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	site := newKeySite(t)
	m := newIndexNowManager(t, clk, true, site)
	query := "?" + url.Values{"url": {site.URL + "/a"}, "key": {inKey}}.Encode()
	for i := range indexnow.DefaultBurst {
		if code, _, out := pushURLs(t, m, "GET", query, nil); code != http.StatusOK {
			t.Fatalf("submission %d = %d %s", i+1, code, out)
		}
	}
	code, h, _ := pushURLs(t, m, "GET", query, nil)
	if code != http.StatusTooManyRequests || h.Get("Retry-After") != fmt.Sprint(int(indexnow.DefaultEvery.Seconds())) {
		t.Fatalf("a submission past the burst = %d, Retry-After %q", code, h.Get("Retry-After"))
	}
	clk.add(indexnow.DefaultEvery)
	if code, _, out := pushURLs(t, m, "GET", query, nil); code != http.StatusOK {
		t.Fatalf("a submission after the wait = %d %s", code, out)
	}
}

// Key files are fetched from public addresses only: without the test
// switch, a site on loopback cannot be verified.
func TestIndexNowKeyFileOnPrivateAddress(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	site := newKeySite(t)
	m := newIndexNowManager(t, clk, false, site)
	code, _, out := pushURLs(t, m, "GET", "?"+url.Values{"url": {site.URL + "/a"}, "key": {inKey}}.Encode(), nil)
	if code != http.StatusForbidden || !strings.Contains(out, "not a public address") {
		t.Fatalf("submission = %d %s, want 403 naming the address rule", code, out)
	}
	if n := site.fetched("/" + inKey + ".txt"); n != 0 {
		t.Fatalf("the key file on loopback was fetched %d times", n)
	}
}

// A URL pushed after a round is in the very next round, fetched in full,
// though the channel's interval has not passed; once that round brings a
// result it is not pushed again.
func TestIndexNowPushedURLInNextRound(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	site := newKeySite(t)
	m := newIndexNowManager(t, clk, true, site)
	changed := site.URL + "/news/changed.html"

	// Round 1, brought back with the page known and its validator.
	round := func(n int) (channels.Task, *task.Task) {
		t.Helper()
		if err := m.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		open, err := m.db.Open()
		if err != nil || len(open) != n {
			t.Fatalf("%d open tasks, %v; want %d", len(open), err, n)
		}
		if n == 0 {
			return channels.Task{}, nil
		}
		spec, err := task.Decode(open[0].Spec)
		if err != nil {
			t.Fatal(err)
		}
		return open[0], spec
	}
	finish := func(tk channels.Task) {
		t.Helper()
		if _, err := m.db.Claim(tk.ID, tk.Epoch, "peer", clk.now(), m.opts.leaseTimes(0)); err != nil {
			t.Fatal(err)
		}
		fb := channels.Feedback{Pages: []channels.PageResult{
			{URL: site.URL + "/", Digest: 1},
			{URL: changed, Digest: 2, ETag: `"v1"`, Depth: 2},
		}}
		if _, err := m.book.Complete(ctx, tk.ID, "peer", fb); err != nil {
			t.Fatal(err)
		}
	}
	tk, _ := round(1)
	finish(tk)
	clk.add(time.Minute)
	round(0) // not due: its interval has not passed

	code, _, out := pushURLs(t, m, "POST", "", indexnow.Request{Key: inKey, URLs: []string{changed, site.URL + "/news/new.html"}})
	if code != http.StatusOK || !strings.Contains(out, `"accepted":2`) {
		t.Fatalf("submission = %d %s", code, out)
	}
	tk, spec := round(1)
	if tk.Round != 2 {
		t.Fatalf("the pushed URLs went into round %d, want 2", tk.Round)
	}
	// The pushed pages lead the pages the crawl revisits: the known one at
	// its depth, the new one as a seed, both fetched in full.
	want := []task.Validator{{URL: changed, Depth: 2}, {URL: site.URL + "/news/new.html"}}
	if len(spec.Validators) < 2 || !slices.Equal(spec.Validators[:2], want) {
		t.Fatalf("round 2 revisits %+v, want %+v first", spec.Validators, want)
	}
	finish(tk)
	c, _ := m.db.Get(site.host)
	if len(c.Pushed.URLs) != 0 || c.CrawlSoon {
		t.Fatalf("after round 2's result the channel still holds %+v (crawl soon %v)", c.Pushed.URLs, c.CrawlSoon)
	}
}
