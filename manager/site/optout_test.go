package site

import (
	"html"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
)

// proofSite is a web site on loopback whose OptOutFile the test sets.
type proofSite struct {
	*httptest.Server
	mu    sync.Mutex
	body  string
	code  int
	moved string // when set, OptOutFile redirects here
	asked int
}

func newProofSite(t *testing.T) *proofSite {
	s := &proofSite{code: http.StatusNotFound}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.URL.Path != OptOutFile {
			http.NotFound(w, r)
			return
		}
		s.asked++
		if s.moved != "" {
			http.Redirect(w, r, s.moved, http.StatusFound)
			return
		}
		w.WriteHeader(s.code)
		io.WriteString(w, s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests returns how often OptOutFile was asked for.
func (s *proofSite) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

func (s *proofSite) serve(code int, body string) {
	s.mu.Lock()
	s.code, s.body = code, body
	s.mu.Unlock()
}

var tokenInput = regexp.MustCompile(`name="token" value="([^"]+)"`)

// optOutServer serves the self-service opt-out on loopback, recording
// opt-outs in got, on the clock now.
type optOutServer struct {
	*httptest.Server
	mu  sync.Mutex
	got map[string]string // site name → reason
}

func newOptOutServer(t *testing.T, now func() time.Time) *optOutServer {
	t.Helper()
	o := &optOutServer{got: map[string]string{}}
	mux := http.NewServeMux()
	OptOutRoutes(mux, OptOutConfig{
		Secret: []byte("the operator's key"),
		Record: func(name, reason string) error {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.got[name] = reason
			return nil
		},
		Fetcher: Fetcher{Client: FileClient(true), UserAgent: func() string { return "hivecrawl-test" }},
		Now:     now,
		Log:     slog.New(slog.DiscardHandler),
	})
	o.Server = httptest.NewServer(mux)
	t.Cleanup(o.Close)
	return o
}

// recorded returns the opt-outs recorded so far.
func (o *optOutServer) recorded() map[string]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.got)
}

// postForm posts form to the opt-out server and returns the status and
// page.
func postForm(t *testing.T, o *optOutServer, path string, form url.Values) (int, string) {
	t.Helper()
	resp, err := http.PostForm(o.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, html.UnescapeString(string(b))
}

// TestSelfServiceOptOut: a site owner asks the site server for a token, is refused while the file is missing, wrong, too large,
// redirected to another host or the token is for another site, and once
// the file holds the token the site is opted out, recorded as proven by
// it. A token a day old is refused without a fetch.
func TestSelfServiceOptOut(t *testing.T) {
	var mu sync.Mutex
	now := time.Now().UTC()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	m := newOptOutServer(t, clock)
	site := newProofSite(t)
	other := newProofSite(t)

	resp, err := http.Get(m.URL + OptOutPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET %s = %s %s", OptOutPath, resp.Status, resp.Header.Get("Content-Type"))
	}
	if code, page := postForm(t, m, OptOutPath, url.Values{"site": {"co.uk"}}); code != http.StatusBadRequest || !strings.Contains(page, "not a web site") {
		t.Fatalf("a public suffix: %d %s", code, page)
	}
	code, page := postForm(t, m, OptOutPath, url.Values{"site": {site.URL + "/some/page"}})
	got := tokenInput.FindStringSubmatch(page)
	if code != http.StatusOK || got == nil || !strings.Contains(page, site.URL+OptOutFile) {
		t.Fatalf("asking for a token: %d %s", code, page)
	}
	token := got[1]
	confirm := func(site, token string) (int, string) {
		return postForm(t, m, OptOutPath+"/confirm", url.Values{"site": {site}, "token": {token}})
	}

	for _, tc := range []struct {
		name  string
		setup func()
		site  string
		says  string
	}{
		{"no file", func() {}, site.URL, "404"},
		{"another token", func() { site.serve(http.StatusOK, "hivecrawl-optout-1-00\n") }, site.URL, "does not hold the token"},
		{"too large", func() { site.serve(http.StatusOK, token+"\n"+strings.Repeat("x", MaxOptOutFile)) }, site.URL, "longer than"},
		{"another host's token", func() { other.serve(http.StatusOK, token) }, other.URL, "given for another site"},
		{"redirected elsewhere", func() {
			site.serve(http.StatusOK, "")
			site.mu.Lock()
			site.moved = other.URL + OptOutFile
			site.mu.Unlock()
		}, site.URL, "redirected to another host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			code, page := confirm(tc.site, token)
			if code != http.StatusForbidden || !strings.Contains(page, tc.says) {
				t.Fatalf("confirm = %d, want 403 saying %q:\n%s", code, tc.says, page)
			}
		})
	}
	if list := m.recorded(); len(list) != 0 {
		t.Fatalf("opted out without a proof: %+v", list)
	}
	if n := other.requests(); n != 0 {
		t.Errorf("the other site was asked %d times for a token not its own", n)
	}

	site.mu.Lock()
	site.moved = ""
	site.mu.Unlock()
	site.serve(http.StatusOK, "\uFEFFsomebody-else's-line\r\n  "+token+"  \r\n")
	code, page = confirm(site.URL+"/", token)
	if code != http.StatusOK || !strings.Contains(page, "Done: 127.0.0.1 opted out") {
		t.Fatalf("confirm with the file in place: %d %s", code, page)
	}
	if got := m.recorded(); len(got) != 1 || got["127.0.0.1"] != "site: proven by token at "+site.URL+OptOutFile {
		t.Fatalf("opt-outs recorded: %+v", got)
	}

	// A day later the token is refused before any fetch.
	asked := site.requests()
	mu.Lock()
	now = now.Add(OptOutTokenLife)
	mu.Unlock()
	if code, page := confirm(site.URL, token); code != http.StatusForbidden || !strings.Contains(page, "expired") {
		t.Fatalf("a day-old token: %d %s", code, page)
	}
	if site.requests() != asked {
		t.Errorf("an expired token made the manager fetch the file")
	}
}

// TestOptOutProofNeedsAPublicAddress: without the tests' loopback switch
// the proof is never fetched from a loopback address, as the crawler
// would not fetch it.
func TestOptOutProofNeedsAPublicAddress(t *testing.T) {
	site := newProofSite(t)
	target, err := parseOptOutSite(site.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := newOptOutSite(OptOutConfig{Secret: []byte("key"), Fetcher: Fetcher{Client: FileClient(false), UserAgent: func() string { return "hivecrawl-test" }}})
	token := s.token(target, time.Now().Add(time.Hour))
	site.serve(http.StatusOK, token)
	if why := s.fetchProof(t.Context(), target, token); !strings.Contains(why, "not a public address") {
		t.Fatalf("fetching the proof from loopback: %q", why)
	}
	if site.requests() != 0 {
		t.Errorf("the loopback site was asked")
	}
}

func TestParseOptOutSite(t *testing.T) {
	for _, c := range []struct {
		in     string
		want   optOutTarget
		refuse bool
	}{
		{in: "Example.com", want: optOutTarget{Name: "example.com", Domain: true, Origin: "https://example.com"}},
		{in: "http://www.example.com:8080/x?y", want: optOutTarget{Name: "www.example.com", Origin: "http://www.example.com:8080"}},
		{in: "https://www.example.com:443/", want: optOutTarget{Name: "www.example.com", Origin: "https://www.example.com"}},
		{in: "localhost", refuse: true},
		{in: "ftp://example.com", refuse: true},
		{in: " ", refuse: true},
		{in: strings.Repeat("a", maxSiteInput+1) + ".com", refuse: true},
	} {
		got, err := parseOptOutSite(c.in)
		if (err != nil) != c.refuse || (!c.refuse && got != c.want) {
			t.Errorf("parseOptOutSite(%q) = %+v, %v; want %+v, refused %v", c.in, got, err, c.want, c.refuse)
		}
	}
}

func FuzzParseOptOutSite(f *testing.F) {
	for _, s := range []string{"example.com", "https://www.example.co.uk:8443/a", "http://[::1]:80/", "bücher.example", "co.uk", "a..b", "http://x/\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseOptOutSite(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(got.Origin, "http://") && !strings.HasPrefix(got.Origin, "https://") {
			t.Fatalf("%q: origin %q is not http(s)", s, got.Origin)
		}
		if !(channels.OptOut{Name: got.Name, Domain: got.Domain}).Covers(strings.SplitN(got.Origin, "://", 2)[1]) {
			t.Fatalf("%q: the opt-out %q does not cover the origin %q it was proven on", s, got.Name, got.Origin)
		}
	})
}

func FuzzFileHolds(f *testing.F) {
	const token = "hivecrawl-optout-1790000000-0123456789abcdef0123456789abcdef"
	for _, s := range []string{token, "\uFEFF" + token + "\r\n", "x\n" + token, token + "x", "", strings.Repeat("\n", 5000)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		held := fileHolds(body, token)
		if held && (len(body) > MaxOptOutFile || !strings.Contains(string(body), token)) {
			t.Fatalf("%q held the token", body)
		}
		if fileHolds(body, "") {
			t.Fatal("an empty token was held")
		}
	})
}
