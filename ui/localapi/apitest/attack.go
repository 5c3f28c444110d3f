// Package apitest holds the local API's attack set: requests without the
// token, with a wrong one, with the token where the server must not look
// for it, and with a spoofed Host header, sent to every route a server has.
// Tests of package localapi run it against the server alone and tests of
// package app against the whole client, web page and metrics included.
package apitest

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Server is what the attack set needs: *localapi.Server.
type Server interface {
	URL() string
	Token() string
	// Routes lists every pattern and whether it answers without the token.
	Routes() (patterns []string, public map[string]bool)
}

// tokenHeader is loopback.TokenHeader (apitest must not import localapi's
// internals; the header is part of the API).
const tokenHeader = "X-Hivecrawl-Token"

// Methods are the methods every path is tried with.
var Methods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}

// Credentials are the ways a request tries to get in without the token in
// its place. spoofHost marks the ones that carry the right token with a
// foreign Host, which must be refused even on public routes.
type Credentials struct {
	Name      string
	Set       func(r *http.Request, token string)
	SpoofHost bool
}

// Attempts are the credentials the attack set tries.
var Attempts = []Credentials{
	{Name: "no token", Set: func(*http.Request, string) {}},
	{Name: "wrong token", Set: func(r *http.Request, tok string) { r.Header.Set(tokenHeader, otherFirst(tok)) }},
	{Name: "token prefix", Set: func(r *http.Request, tok string) { r.Header.Set(tokenHeader, tok[:len(tok)/2]) }},
	{Name: "wrong bearer", Set: func(r *http.Request, tok string) { r.Header.Set("Authorization", "Bearer x"+tok) }},
	{Name: "token in the query", Set: func(r *http.Request, tok string) {
		q := r.URL.Query()
		q.Set("token", tok)
		q.Set("access_token", tok)
		r.URL.RawQuery = q.Encode()
	}},
	{Name: "token in a cookie", Set: func(r *http.Request, tok string) {
		r.AddCookie(&http.Cookie{Name: tokenHeader, Value: tok})
		r.AddCookie(&http.Cookie{Name: "token", Value: tok})
	}},
	{Name: "token in another header", Set: func(r *http.Request, tok string) {
		r.Header.Set("X-Api-Key", tok)
		r.Header.Set("X-Token", tok)
	}},
	{Name: "token as Authorization without scheme", Set: func(r *http.Request, tok string) { r.Header.Set("Authorization", tok) }},
	{Name: "token as basic auth", Set: func(r *http.Request, tok string) {
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("hivecrawl:"+tok)))
	}},
	{Name: "forwarded from loopback", Set: func(r *http.Request, tok string) {
		r.Header.Set("X-Forwarded-For", "127.0.0.1")
		r.Header.Set("X-Forwarded-Host", "127.0.0.1")
		r.Header.Set("X-Real-IP", "127.0.0.1")
	}},
	{Name: "token, foreign host", SpoofHost: true, Set: func(r *http.Request, tok string) {
		r.Header.Set(tokenHeader, tok)
		r.Host = "evil.example"
	}},
	{Name: "token, rebinding name with the port", SpoofHost: true, Set: func(r *http.Request, tok string) {
		r.Header.Set(tokenHeader, tok)
		r.Host = "127.0.0.1.evil.example:" + r.URL.Port()
	}},
	{Name: "token, loopback on another port", SpoofHost: true, Set: func(r *http.Request, tok string) {
		r.Header.Set(tokenHeader, tok)
		r.Host = "localhost:1"
	}},
}

var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// Paths turns a route pattern into the paths to try: wildcards filled in,
// and a subtree pattern ("/debug/pprof/") with a name below it too.
func Paths(pattern string) (method, path string, paths []string) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "", pattern
	}
	if i := strings.Index(path, "/"); i > 0 { // a host in the pattern
		path = path[i:]
	}
	p := wildcard.ReplaceAllString(strings.TrimSuffix(path, "{$}"), "x")
	paths = []string{p}
	if strings.HasSuffix(p, "/") {
		paths = append(paths, p+"heap")
	}
	return method, path, paths
}

// Run sends the attack set to srv: every route × every method × every
// attempt. Each must be refused (401, or 403 for a foreign Host) without
// a word of the client's data, except a GET or HEAD on a public route,
// which may answer but must not give the token away. Then, as a control,
// each GET route that is not public is asked with the token and must not
// be refused, so a server that refused everything would not pass.
func Run(t *testing.T, srv Server) {
	t.Helper()
	patterns, public := srv.Routes()
	if len(patterns) == 0 {
		t.Fatal("the server lists no routes")
	}
	base, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	tok := srv.Token()
	hc := &http.Client{
		Timeout:       time.Minute,
		Transport:     &http.Transport{Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	paths := map[string]bool{"/nowhere": false, "/api/nowhere": false}
	for _, p := range patterns {
		_, _, ps := Paths(p)
		for _, path := range ps {
			paths[path] = paths[path] || public[p]
		}
	}
	send := func(method, path string, set func(*http.Request, string)) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		u := *base
		u.Path = path
		u.RawQuery = "seconds=1" // pprof's profile would otherwise take 30 s
		req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
		if err != nil {
			t.Fatal(err)
		}
		set(req, tok)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			return resp.StatusCode, "" // a stream does not end; its status is enough
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(body)
	}
	tried := 0
	for path, pub := range paths {
		for _, method := range Methods {
			for _, a := range Attempts {
				code, body := send(method, path, a.Set)
				tried++
				if strings.Contains(body, tok) {
					t.Errorf("%s %s, %s: the answer gives the token away", method, path, a.Name)
				}
				switch {
				case a.SpoofHost:
					if code != http.StatusForbidden {
						t.Errorf("%s %s, %s: %d, want 403", method, path, a.Name, code)
					}
				case pub && (method == "GET" || method == "HEAD"):
					// A public route answers as it likes, but without data
					// (checked by its own tests) and never with the token.
				case code != http.StatusUnauthorized:
					t.Errorf("%s %s, %s: %d %.200s, want 401", method, path, a.Name, code, body)
				}
			}
		}
	}
	t.Logf("%d routes, %d paths, %d requests refused or public", len(patterns), len(paths), tried)
	for _, p := range patterns {
		method, _, ps := Paths(p)
		if method != "GET" || public[p] {
			continue
		}
		for _, path := range ps {
			code, body := send("GET", path, func(r *http.Request, tok string) { r.Header.Set(tokenHeader, tok) })
			if code == http.StatusUnauthorized || code == http.StatusForbidden {
				t.Errorf("GET %s with the token: %d %.200s", path, code, body)
			}
		}
	}
}

// otherFirst is tok with its first character changed: "0" in front of
// the rest was tok itself for one token in sixteen (hex tokens starting
// with 0), and every "wrong token" request was then let in.
func otherFirst(tok string) string {
	if tok[0] == '0' {
		return "1" + tok[1:]
	}
	return "0" + tok[1:]
}
