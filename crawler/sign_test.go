package crawler

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestSignedRequests: with Config.Sign set, every request a site sees
// (robots.txt, its redirect, pages, a redirect hop) carries a Web Bot Auth
// signature that verifies against the key directory, checked by the site
// itself as it receives the request.
func TestSignedRequests(t *testing.T) {
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := botauth.NewSigner(key, "https://manager.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := botauth.Directory{Keys: []botauth.JWK{botauth.NewJWK(pub)}}

	var mu sync.Mutex
	verified := map[string]error{} // path → Verify's verdict
	agents := map[string]string{}  // path → Signature-Agent
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/robots-moved.txt", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/robots-moved.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/b", http.StatusFound)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, html(links("/a", "/moved")))
		case "/a", "/b":
			fmt.Fprint(w, html("page "+r.URL.Path))
		default:
			http.NotFound(w, r)
		}
	})
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := botauth.Verify(r, dir, time.Now())
		mu.Lock()
		verified[r.URL.Path] = err
		agents[r.URL.Path] = r.Header.Get(botauth.AgentHeader)
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))

	cfg := testConfig(t)
	cfg.Sign = signer.Sign
	res, sink := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 2})
	if p := sink.byURL(s.URL + "/a"); p == nil || p.Status != http.StatusOK {
		t.Fatalf("page /a = %+v (stats %+v)", p, res.Stats)
	}

	mu.Lock()
	defer mu.Unlock()
	var paths []string
	for p := range verified {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	want := []string{"/", "/a", "/b", "/moved", "/robots-moved.txt", "/robots.txt"}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Fatalf("site saw %v, want %v", paths, want)
	}
	for _, p := range paths {
		if err := verified[p]; err != nil {
			t.Errorf("%s: signature does not verify: %v", p, err)
		}
		if agents[p] != `sig1="https://manager.example"` {
			t.Errorf("%s: Signature-Agent %q", p, agents[p])
		}
	}
}

// TestSignFailureFailsRequest: a request that cannot be signed is not
// sent, and its page records the failure.
func TestSignFailureFailsRequest(t *testing.T) {
	s := newSite(t, pages(map[string]string{"/": html(links("/a", "/b")), "/a": html("a"), "/b": html("b")}))
	errNoKey := errors.New("no key for this page")
	cfg := testConfig(t)
	cfg.Sign = func(r *http.Request) error {
		if r.URL.Path == "/a" {
			return errNoKey
		}
		r.Header.Set("X-Signed", "yes")
		return nil
	}
	_, sink := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	if n := len(s.requests("/a")); n != 0 {
		t.Fatalf("the site saw %d requests for /a, which could not be signed", n)
	}
	if p := sink.byURL(s.URL + "/a"); p == nil || p.Error == "" {
		t.Fatalf("page /a = %+v, want a failure", p)
	}
	for _, h := range s.requests("/") {
		if h.Hdr.Get("X-Signed") != "yes" {
			t.Errorf("%s went out without Sign being called", h.Path)
		}
	}
	if p := sink.byURL(s.URL + "/b"); p == nil || p.Status != http.StatusOK || strings.TrimSpace(p.Error) != "" {
		t.Errorf("page /b = %+v, want fetched", p)
	}
}
