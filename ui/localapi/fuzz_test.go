package localapi

import (
	"bufio"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
)

func FuzzParseChanges(f *testing.F) {
	f.Add("application/json", `{"download":"200KB/s","threads":4,"schedule":{"windows":[]}}`)
	f.Add("application/x-www-form-urlencoded", "download=1MB%2Fs&threads=2")
	f.Add("text/plain", "threads=5\n\ndownload=0\n")
	f.Add("", "a=b=c")
	f.Fuzz(func(t *testing.T, ctype, body string) {
		req, _ := http.NewRequest("POST", "http://127.0.0.1/api/config", strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		changes, err := parseChanges(req)
		if err != nil {
			return
		}
		for _, c := range changes {
			if ctype == "text/plain" && strings.TrimSpace(c.Key) == "" {
				t.Fatalf("empty key from %q", body)
			}
		}
	})
}

func FuzzParseSeeds(f *testing.F) {
	f.Add("application/json", `{"urls": ["https://example.org/", " "]}`)
	f.Add("text/plain", "# mine\nhttps://example.org/\n\n  http://a.example/x  \n")
	f.Add("", "https://example.org/\r\nhttps://b.example/")
	f.Add("application/json", `{"urls": null}`)
	f.Fuzz(func(t *testing.T, ctype, body string) {
		req, _ := http.NewRequest("POST", "http://127.0.0.1/api/solo/seeds", strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		urls, err := parseSeeds(req)
		if err != nil {
			return
		}
		if len(urls) == 0 || len(urls) > maxSeedsPerRequest {
			t.Fatalf("%d seeds from %q without an error", len(urls), body)
		}
		for _, u := range urls {
			if u == "" || u != strings.TrimSpace(u) {
				t.Fatalf("seed %q from %q: blank or untrimmed", u, body)
			}
			if ctype != "application/json" && (strings.HasPrefix(u, "#") || strings.ContainsAny(u, "\r\n")) {
				t.Fatalf("seed %q from %q: a comment or across lines", u, body)
			}
		}
	})
}

// FuzzGuard sends the guard any request target, with and without the
// token: it never answers 500, a malformed path gets 400, and without
// the token only the public routes answer anything but 400 or 401.
func FuzzGuard(f *testing.F) {
	for _, p := range []string{"/api/status", "/%c0%ae", "/%zz", "/api/health", "/page.css", "/api/%ff", "/x%00", "//api/status", "/api/../api/status", "*"} {
		f.Add(p, false)
		f.Add(p, true)
	}
	s := &Server{backend: fullBackend{&fakeSolo{fakeBackend: newFake()}}, opts: Options{Token: "t0ken", Logger: discard()}, port: "8080", mux: newRouter()}
	s.routes()
	s.HandlePublic("GET /page.css", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("body{}")) }))
	h := s.Handler()
	f.Fuzz(func(t *testing.T, target string, token bool) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")))
		if err != nil {
			return // the server answers 400 before any handler
		}
		if token {
			req.Header.Set(loopback.TokenHeader, "t0ken")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch {
		case w.Code == http.StatusInternalServerError:
			t.Fatalf("GET %q: 500 %s", target, w.Body)
		case !validPath(req.URL.Path) && w.Code != http.StatusBadRequest:
			t.Fatalf("GET %q, a malformed path: %d", target, w.Code)
		case !token && w.Code != http.StatusBadRequest && w.Code != http.StatusUnauthorized && !s.mux.isPublic(req):
			t.Fatalf("GET %q without the token: %d %s", target, w.Code, w.Body)
		}
	})
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
