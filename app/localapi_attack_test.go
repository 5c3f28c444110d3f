package app

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
	"github.com/hivecrawl/hivecrawl/ui/localapi/apitest"
	"github.com/hivecrawl/hivecrawl/ui/web"
)

// startedAPI starts a solo client with metrics on and returns its local API
// once api.json says it answers.
func startedAPI(t *testing.T) (*Client, *localapi.Server, loopback.Info) {
	t.Helper()
	c, _ := startSolo(t, true)
	var info loopback.Info
	eventually(t, "api.json", func() bool {
		var err error
		info, err = loopback.ReadInfo(c.Dirs().APIFile())
		return err == nil && c.api.Load() != nil
	})
	if _, err := localapi.NewClient(info).SetConfig(context.Background(), localapi.Change{Key: "metrics", Value: "on"}); err != nil {
		t.Fatal(err)
	}
	return c, c.api.Load(), info
}

// TestLocalAPIAttackSet sends the attack set to every route of a whole
// client: the API's own, solo mode's, the event log, the web page's and
// /metrics. Without the token only the health check and the page's files
// answer.
func TestLocalAPIAttackSet(t *testing.T) {
	_, api, _ := startedAPI(t)
	patterns, public := api.Routes()
	all := strings.Join(patterns, "\n")
	for _, want := range []string{"GET /api/events", "GET /api/solo/text", "GET /api/solo/search", "GET /ui/receipts", "GET /ui/events", "GET /metrics"} {
		if !strings.Contains(all, want) || public[want] {
			t.Errorf("route %q missing from the client's routes, or public", want)
		}
	}
	for p := range public {
		switch {
		case p == "GET /api/health", p == "GET /ui/session", p == "GET /ui/login", p == "GET /{$}":
		case strings.HasPrefix(p, "GET /") && !strings.Contains(p, "{") && !strings.HasPrefix(p, "GET /api/") && !strings.HasPrefix(p, "GET /ui/"):
			// one of the page's files
		default:
			t.Errorf("public route %q: only health, the sign-in exchange and the page's files may be", p)
		}
	}
	apitest.Run(t, api)
}

// TestLocalAPIWithoutToken: the event log, which names the log file, and
// the crawled text answer a caller without the token with nothing but a
// refusal; the CLI's client, which sends the token, still reads them.
func TestLocalAPIWithoutToken(t *testing.T) {
	c, api, info := startedAPI(t)
	for _, path := range []string{"/api/events", "/api/status", "/api/config", "/api/solo/channels", "/api/solo/search?q=x", "/ui/receipts", "/ui/receipts.csv", "/metrics"} {
		resp, err := http.Get(api.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), c.Dirs().Data) || strings.Contains(string(body), "/") && strings.Contains(string(body), c.Dirs().Config) {
			t.Errorf("GET %s without the token: %d %s", path, resp.StatusCode, body)
		}
	}
	resp, err := http.Get(api.URL() + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "{\n  \"ok\": true\n}" {
		t.Errorf("GET /api/health: %d %s", resp.StatusCode, body)
	}
	cl := localapi.NewClient(info)
	log, err := cl.Events(context.Background(), 10)
	if err != nil || len(log.Events) == 0 {
		t.Fatalf("events with the token: %+v, %v", log, err)
	}
	if err := cl.Health(context.Background()); err != nil {
		t.Errorf("Health: %v", err)
	}
}

// TestLocalAPIMalformedPaths: paths that are not UTF-8 text answer 400,
// not 500 (the page's file server failed on them).
func TestLocalAPIMalformedPaths(t *testing.T) {
	_, api, info := startedAPI(t)
	addr := strings.TrimPrefix(api.URL(), "http://")
	for _, path := range []string{"/%c0%ae", "/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", "/%ff.js", "/app.js%00", "/%zz", "/ui/%"} {
		for _, token := range []string{"", info.Token} {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			req := "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n"
			if token != "" {
				req += loopback.TokenHeader + ": " + token + "\r\n"
			}
			io.WriteString(conn, req+"\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			resp.Body.Close()
			conn.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("GET %s (token %v): %d, want 400", path, token != "", resp.StatusCode)
			}
		}
	}
}

// TestLocalAPIPageSession: a browser signed in with a one-time link reads
// with its session cookie alone, but only from the page itself, and still
// needs the token header to change anything.
func TestLocalAPIPageSession(t *testing.T) {
	_, api, info := startedAPI(t)
	link, err := web.LoginURL(context.Background(), info, "")
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	get := func(method, path, site string) int {
		t.Helper()
		req, _ := http.NewRequest(method, api.URL()+path, nil)
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tt := range []struct {
		method, path, site string
		want               int
	}{
		{"GET", "/api/status", "same-origin", 200},
		{"GET", "/api/events", "", 200},
		{"GET", "/ui/receipts", "same-origin", 200},
		{"GET", "/api/status", "cross-site", 401},
		{"GET", "/api/status", "same-site", 401},
		{"POST", "/api/pause", "same-origin", 401},
		{"POST", "/ui/login-code", "same-origin", 401},
	} {
		if got := get(tt.method, tt.path, tt.site); got != tt.want {
			t.Errorf("%s %s with the session cookie (Sec-Fetch-Site %q): %d, want %d", tt.method, tt.path, tt.site, got, tt.want)
		}
	}
	// Signed out, the same cookie reads nothing.
	req, _ := http.NewRequest("POST", api.URL()+"/ui/logout", nil)
	req.Header.Set(loopback.TokenHeader, info.Token)
	if resp, err := browser.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if got := get("GET", "/api/status", "same-origin"); got != 401 {
		t.Errorf("GET /api/status after signing out: %d, want 401", got)
	}
}

// TestLocalAPISettingRanges: the Settings page's route refuses a setting
// out of its range with 400 and the range, and changes nothing.
func TestLocalAPISettingRanges(t *testing.T) {
	c, _, info := startedAPI(t)
	cl := localapi.NewClient(info)
	for _, ch := range []localapi.Change{{Key: "api_port", Value: "22"}, {Key: "connections", Value: "-1"}, {Key: "download", Value: "20GB/s"}} {
		_, err := cl.SetConfig(context.Background(), ch)
		var ae *localapi.APIError
		if !errors.As(err, &ae) || ae.Code != http.StatusBadRequest || !strings.Contains(ae.Message, ch.Key) {
			t.Errorf("set %s=%s: %v, want 400 naming the setting", ch.Key, ch.Value, err)
		}
	}
	if got := c.cfg.Get(); got.APIPort == 22 || got.Connections != 0 || got.Download != 0 {
		t.Errorf("refused settings changed the configuration: %+v", got)
	}
}
