package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/task"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

const testToken = "secret-token"

// fakeAuth checks the token as localapi.Server does.
type fakeAuth struct{ url string }

func (a fakeAuth) Authorized(r *http.Request) bool {
	return r.Header.Get(loopback.TokenHeader) == testToken
}
func (a fakeAuth) Token() string { return testToken }
func (a fakeAuth) URL() string   { return a.url }

// statuses hands out a status with a growing download rate.
type statuses struct {
	mu   sync.Mutex
	n    int64
	fail bool
}

func (s *statuses) Status(context.Context) (localapi.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return localapi.Status{}, errors.New("busy")
	}
	s.n++
	return localapi.Status{State: "running", Download: localapi.Rate{Current: 1000 * s.n, Cap: 5000}}, nil
}

type fakeCredits struct{ rs []Receipt }

func (f fakeCredits) Receipts(_ context.Context, limit int) ([]Receipt, error) {
	if limit > 0 && len(f.rs) > limit {
		return f.rs[:limit], nil
	}
	return f.rs, nil
}

func (f fakeCredits) CreditDays(_ context.Context, first, last time.Time) ([]CreditDay, error) {
	return []CreditDay{{Date: first.Format(time.DateOnly), Confirmed: 2}, {Date: last.Format(time.DateOnly), Pending: 3}}, nil
}

func (f fakeCredits) WriteReceiptsCSV(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, "task_id\nt1\n")
	return err
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// plainMux is a ServeMux with Mux's other methods; it checks nothing, so
// these tests reach the handlers (the token check is localapi's, tested
// there and with the whole client in app).
type plainMux struct {
	*http.ServeMux
	session func(*http.Request) bool
}

func (m *plainMux) HandlePublic(p string, h http.Handler)    { m.Handle(p, h) }
func (m *plainMux) AcceptSession(f func(*http.Request) bool) { m.session = f }

// server mounts a UI on a plain mux behind an httptest server.
func server(t *testing.T, opts Options) (*UI, *httptest.Server) {
	t.Helper()
	mux := &plainMux{ServeMux: http.NewServeMux()}
	srv := httptest.NewUnstartedServer(mux)
	srv.Start()
	t.Cleanup(srv.Close)
	opts.Auth = fakeAuth{url: srv.URL}
	if opts.Status == nil {
		opts.Status = &statuses{}
	}
	u := New(opts)
	u.Mount(mux)
	return u, srv
}

func noRedirect() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func TestHistory(t *testing.T) {
	cases := []struct {
		name  string
		add   []int64 // sample times in seconds
		now   int64
		want  []int64
		span  time.Duration
		every time.Duration
	}{
		{"empty", nil, 100, []int64{}, 10 * time.Second, time.Second},
		{"in order", []int64{1, 2, 3}, 3, []int64{1, 2, 3}, 10 * time.Second, time.Second},
		{"old ones left out", []int64{1, 2, 21, 30, 31}, 31, []int64{30, 31}, 10 * time.Second, time.Second},
		{"ring wraps oldest first", []int64{1, 2, 3, 4, 5, 6, 7}, 6, []int64{5, 6, 7}, 2 * time.Second, time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := NewHistory(c.span, c.every)
			for _, s := range c.add {
				h.Add(Sample{T: s * 1000})
			}
			got := []int64{}
			for _, s := range h.Since(c.now * 1000) {
				got = append(got, s.T/1000)
			}
			if !equal(got, c.want) {
				t.Errorf("Since = %v, want %v", got, c.want)
			}
		})
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSessions(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		code   func(s *sessions) string
		at     time.Duration
		wantOK bool
	}{
		{"issued code", func(s *sessions) string { return s.code(t0) }, time.Second, true},
		{"unknown code", func(s *sessions) string { s.code(t0); return "nope" }, time.Second, false},
		{"empty code", func(s *sessions) string { return "" }, 0, false},
		{"expired code", func(s *sessions) string { return s.code(t0) }, CodeTTL, false},
		{"spent code", func(s *sessions) string { c := s.code(t0); s.redeem(c, t0); return c }, time.Second, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSessions("", slog.New(slog.DiscardHandler))
			code := c.code(s)
			id, ok := s.redeem(code, t0.Add(c.at))
			if ok != c.wantOK {
				t.Fatalf("redeem ok = %v, want %v", ok, c.wantOK)
			}
			if ok && !s.valid(id, t0.Add(c.at)) {
				t.Error("fresh session is not valid")
			}
			if ok && s.valid(id, t0.Add(c.at+SessionTTL)) {
				t.Error("session valid past its lifetime")
			}
		})
	}
}

func TestSignIn(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	u, srv := server(t, Options{Now: clk.Now})
	hc := noRedirect()

	// No token, no code.
	resp, err := http.Post(srv.URL+"/ui/login-code", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("login-code without token: %d", resp.StatusCode)
	}

	link, err := LoginURL(context.Background(), loopback.Info{URL: srv.URL, Token: testToken}, "settings")
	if err != nil {
		t.Fatal(err)
	}
	resp, err = hc.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/#settings" {
		t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == u.cookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("session cookie = %+v", cookie)
	}

	session := func(c *http.Cookie, site string) (int, SessionInfo) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/ui/session", nil)
		if c != nil {
			req.AddCookie(c)
		}
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var si SessionInfo
		json.NewDecoder(resp.Body).Decode(&si)
		return resp.StatusCode, si
	}
	cases := []struct {
		name      string
		cookie    *http.Cookie
		site      string
		wantCode  int
		wantToken string
	}{
		{"signed in", cookie, "same-origin", 200, testToken},
		{"signed in, no fetch metadata", cookie, "", 200, testToken},
		{"no cookie", nil, "same-origin", 200, ""},
		{"forged cookie", &http.Cookie{Name: u.cookie, Value: "abc"}, "same-origin", 200, ""},
		{"cross-site", cookie, "cross-site", 403, ""},
		{"same-site other origin", cookie, "same-site", 403, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, si := session(c.cookie, c.site)
			if code != c.wantCode || si.Token != c.wantToken || si.SignedIn != (c.wantToken != "") {
				t.Errorf("got %d %+v, want %d token %q", code, si, c.wantCode, c.wantToken)
			}
		})
	}

	// The link works once.
	resp, err = hc.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("second use of a sign-in link: %d", resp.StatusCode)
	}
	// The session ends after its lifetime.
	clk.Add(SessionTTL)
	if _, si := session(cookie, "same-origin"); si.SignedIn {
		t.Error("session outlived SessionTTL")
	}
}

func TestLoginNextStaysOnThePage(t *testing.T) {
	_, srv := server(t, Options{})
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/api/pause", "settings/../x"} {
		link, err := LoginURL(context.Background(), loopback.Info{URL: srv.URL, Token: testToken}, next)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(link)
		u.RawQuery = u.Query().Get("code")
		// Put the hostile next back on a valid code.
		resp, err := noRedirect().Get(srv.URL + "/ui/login?code=" + u.RawQuery + "&next=" + url.QueryEscape(next))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); loc != "/#dashboard" {
			t.Errorf("next %q sent the browser to %q", next, loc)
		}
	}
}

func TestEventsStreamHistoryThenTicks(t *testing.T) {
	src := &statuses{}
	u, srv := server(t, Options{Status: src, Interval: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- u.Serve(ctx) }()
	defer func() { cancel(); <-done }()

	resp, err := http.Get(srv.URL + "/ui/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := readEvents(t, resp.Body, 4)
	if events[0].name != "history" {
		t.Fatalf("first event %q, want history", events[0].name)
	}
	var last int64
	for _, ev := range events[1:] {
		if ev.name != "tick" {
			t.Fatalf("event %q, want tick", ev.name)
		}
		var tk tick
		if err := json.Unmarshal([]byte(ev.data), &tk); err != nil {
			t.Fatal(err)
		}
		if tk.Status == nil || tk.Sample == nil || tk.Sample.Down != tk.Status.Download.Current || tk.Sample.DownCap != 5000 {
			t.Fatalf("tick = %s", ev.data)
		}
		if tk.Sample.Down < last {
			t.Errorf("ticks out of order: %d after %d", tk.Sample.Down, last)
		}
		last = tk.Sample.Down
	}
	if n := len(u.History()); n == 0 {
		t.Error("no history kept")
	}
	// A failing client is reported, not hidden.
	src.mu.Lock()
	src.fail = true
	src.mu.Unlock()
	for _, ev := range readEvents(t, resp.Body, 3) {
		if strings.Contains(ev.data, "did not answer") {
			return
		}
	}
	t.Error("no error tick while the status fails")
}

type event struct{ name, data string }

func readEvents(t *testing.T, r io.Reader, n int) []event {
	t.Helper()
	br := bufio.NewReader(r)
	var out []event
	var cur event
	for len(out) < n {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read events: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data += line[6:]
		}
	}
	return out
}

func TestCreditsEndpoints(t *testing.T) {
	rs := []Receipt{{Receipt: task.Receipt{TaskID: "t2", Credits: 2}}, {Receipt: task.Receipt{TaskID: "t1", Credits: 1}}}
	_, srv := server(t, Options{Credits: fakeCredits{rs: rs}})
	_, bare := server(t, Options{})
	cases := []struct {
		name     string
		url      string
		wantCode int
		wantBody string
	}{
		{"receipts", srv.URL + "/ui/receipts", 200, `"task_id":"t2"`},
		{"receipts limited", srv.URL + "/ui/receipts?limit=1", 200, `"available":true,"receipts":[{"task_id":"t2"`},
		{"bad limit", srv.URL + "/ui/receipts?limit=0", 400, "limit must be"},
		{"junk limit", srv.URL + "/ui/receipts?limit=x", 400, "limit must be"},
		{"csv", srv.URL + "/ui/receipts.csv", 200, "task_id\nt1\n"},
		{"days", srv.URL + "/ui/credits/days?days=7", 200, `"confirmed":2`},
		{"too many days", srv.URL + "/ui/credits/days?days=1000", 400, "days must be"},
		{"no ledger", bare.URL + "/ui/receipts", 200, `"available":false,"receipts":[]`},
		{"no ledger csv", bare.URL + "/ui/receipts.csv", 404, "no credits ledger"},
		{"no ledger days", bare.URL + "/ui/credits/days", 200, "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := http.Get(c.url)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.wantCode || !strings.Contains(string(body), c.wantBody) {
				t.Errorf("got %d %s, want %d containing %q", resp.StatusCode, body, c.wantCode, c.wantBody)
			}
		})
	}
}

func TestPageFiles(t *testing.T) {
	_, srv := server(t, Options{})
	cases := []struct{ path, ctype, contains string }{
		{"/", "text/html", `<script src="app.js" defer></script>`},
		{"/app.js", "text/javascript", "EventSource"},
		{"/charts.js", "text/javascript", "HCCharts"},
		{"/overlay.js", "text/javascript", "HCOverlay"},
		{"/solo.js", "text/javascript", "HCSolo"},
		{"/style.css", "text/css", ":root"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) || !strings.Contains(string(body), c.contains) {
				t.Errorf("%s: %d %q", c.path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		})
	}
	// The strict CSP allows no inline script: the page has none.
	resp, _ := http.Get(srv.URL + "/")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), "<script>") || strings.Contains(string(body), " style=") || strings.Contains(string(body), "onclick") {
		t.Error("index.html has inline script or style, which the Content-Security-Policy blocks")
	}
}

func FuzzLogin(f *testing.F) {
	f.Add("", "")
	f.Add("abc", "settings")
	f.Add("%00", "//x")
	s := newSessions("", slog.New(slog.DiscardHandler))
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	issued := s.code(t0)
	f.Fuzz(func(t *testing.T, code, next string) {
		if code == issued {
			return
		}
		u := &UI{sessions: s, opts: Options{Now: func() time.Time { return t0 }}, cookie: "c"}
		req := httptest.NewRequest(http.MethodGet, "/ui/login?"+url.Values{"code": {code}, "next": {next}}.Encode(), nil)
		rec := httptest.NewRecorder()
		u.login(rec, req)
		if rec.Code != http.StatusForbidden || len(rec.Result().Cookies()) != 0 {
			t.Fatalf("code %q next %q: %d with cookies %v", code, next, rec.Code, rec.Result().Cookies())
		}
	})
}

// TestSessionsOutliveRestart: a session kept in a file is valid for the
// next process, which reads the file; the file holds no session ID the
// cookie carries; signing out ends it for the next process too; a
// damaged file gets one log line and no sessions.
func TestSessionsOutliveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "web-sessions.json")
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, nil))
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	first := newSessions(path, log)
	id, ok := first.redeem(first.code(t0), t0)
	if !ok {
		t.Fatal("code not redeemed")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), id) {
		t.Fatalf("the file holds the session ID itself: %s", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, want 0600", st.Mode().Perm())
	}
	second := newSessions(path, log)
	if !second.valid(id, t0.Add(time.Hour)) {
		t.Fatal("session not valid after a restart")
	}
	if second.valid(id, t0.Add(SessionTTL)) {
		t.Fatal("session valid past its lifetime")
	}
	second.end(id)
	if newSessions(path, log).valid(id, t0.Add(time.Hour)) {
		t.Fatal("signed-out session valid after a restart")
	}
	if logged.Len() != 0 {
		t.Fatalf("logged %q", logged.String())
	}

	os.WriteFile(path, []byte(`{"sessions": {"ab`), 0o600)
	damaged := newSessions(path, log)
	if len(damaged.live) != 0 || strings.Count(logged.String(), "\n") != 1 || !strings.Contains(logged.String(), "sign in again") {
		t.Fatalf("damaged file: %d sessions, log %q", len(damaged.live), logged.String())
	}
}
