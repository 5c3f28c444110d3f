package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/testkit/testport"
)

// fakeBackend records what the server asked of it.
type fakeBackend struct {
	mu      sync.Mutex // guards the fields below
	cfg     map[string]string
	paused  bool
	snoozed string
	// finishing is set by Finish.
	finishing bool
}

func newFake() *fakeBackend {
	return &fakeBackend{cfg: map[string]string{"download": "0", "threads": "3"}}
}

func (f *fakeBackend) Status(context.Context) (Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := Status{State: "running", Version: "test"}
	if f.paused {
		st.State, st.Reasons = "paused", []string{"Paused by you"}
	}
	return st, nil
}

func (f *fakeBackend) Config(context.Context) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return json.Marshal(f.cfg)
}

func (f *fakeBackend) SetConfig(_ context.Context, changes []Change) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range changes {
		if _, ok := f.cfg[c.Key]; !ok {
			return Invalid(fmt.Errorf("unknown setting %q", c.Key))
		}
	}
	for _, c := range changes {
		f.cfg[c.Key] = c.Value
	}
	return nil
}

func (f *fakeBackend) Pause(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = true
	return nil
}

func (f *fakeBackend) Finish(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finishing = true
	return nil
}

func (f *fakeBackend) Resume(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = false
	return nil
}

func (f *fakeBackend) Snooze(_ context.Context, d string) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d != "1h" && d != "tomorrow" {
		return time.Time{}, Invalid(fmt.Errorf("bad snooze %q", d))
	}
	f.snoozed = d
	return time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), nil
}

// start runs a real server on 127.0.0.1 until the test ends.
func start(t *testing.T, b Backend) (*Server, string) {
	t.Helper()
	info := filepath.Join(t.TempDir(), "api.json")
	s, err := Listen(b, Options{InfoFile: info})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(info); !os.IsNotExist(err) {
			t.Error("api.json left behind after Serve ended")
		}
	})
	// Serve writes the info file before answering; wait for it.
	for range 200 {
		if _, err := os.Stat(info); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return s, info
}

func TestRequestsRefused(t *testing.T) {
	s, _ := start(t, newFake())
	port := strings.TrimPrefix(s.URL(), "http://127.0.0.1:")
	tests := []struct {
		name   string
		method string
		path   string
		host   string
		token  string
		bearer bool
		want   int
	}{
		{"status from 127.0.0.1", "GET", "/api/status", "", s.Token(), false, 200},
		{"status via localhost", "GET", "/api/status", "localhost:" + port, s.Token(), false, 200},
		{"status via [::1]", "GET", "/api/status", "[::1]:" + port, s.Token(), false, 200},
		{"status without token", "GET", "/api/status", "", "", false, 401},
		{"health without token", "GET", "/api/health", "", "", false, 200},
		{"foreign host", "GET", "/api/status", "evil.example:" + port, "", false, 403},
		{"rebinding name without port", "GET", "/api/status", "attacker.test", "", false, 403},
		{"other port", "GET", "/api/status", "127.0.0.1:1", "", false, 403},
		{"foreign host with token", "POST", "/api/pause", "evil.example", s.Token(), false, 403},
		{"pause without token", "POST", "/api/pause", "", "", false, 401},
		{"pause with wrong token", "POST", "/api/pause", "", "nope", false, 401},
		{"pause with token prefix", "POST", "/api/pause", "", s.Token()[:10], false, 401},
		{"config without token", "POST", "/api/config", "", "", false, 401},
		{"snooze without token", "POST", "/api/snooze?d=1h", "", "", false, 401},
		{"pause with token", "POST", "/api/pause", "", s.Token(), false, 200},
		{"resume with bearer", "POST", "/api/resume", "", s.Token(), true, 200},
		{"GET on a POST route", "GET", "/api/pause", "", s.Token(), false, 405},
		{"heap profile without token", "GET", "/debug/pprof/heap", "", "", false, 401},
		{"heap profile via foreign host", "GET", "/debug/pprof/heap", "evil.example", s.Token(), false, 403},
		{"heap profile with token", "GET", "/debug/pprof/heap", "", s.Token(), false, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, s.URL()+tt.path, nil)
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.token != "" {
				if tt.bearer {
					req.Header.Set("Authorization", "Bearer "+tt.token)
				} else {
					req.Header.Set(loopback.TokenHeader, tt.token)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			for h, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"} {
				if resp.Header.Get(h) != want {
					t.Errorf("%s = %q", h, resp.Header.Get(h))
				}
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("CSP %q", csp)
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Error("CORS header sent")
			}
		})
	}
}

func TestConfigPatch(t *testing.T) {
	b := newFake()
	s, _ := start(t, b)
	tests := []struct {
		name  string
		ctype string
		body  string
		want  int
		check map[string]string
	}{
		{"json", "application/json", `{"download":"200KB/s","threads":4}`, 200, map[string]string{"download": "200KB/s", "threads": "4"}},
		{"form", "application/x-www-form-urlencoded", "download=1MB%2Fs", 200, map[string]string{"download": "1MB/s"}},
		{"text lines", "text/plain", "threads=5\n\ndownload=0\n", 200, map[string]string{"threads": "5", "download": "0"}},
		{"unknown key is all or nothing", "application/json", `{"threads":"9","speed":"fast"}`, 400, map[string]string{"threads": "5"}},
		{"not a pair", "text/plain", "threads", 400, map[string]string{"threads": "5"}},
		{"empty", "application/json", `{}`, 400, nil},
		{"bad json", "application/json", `{"threads":`, 400, nil},
		{"other type", "application/xml", `<x/>`, 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", s.URL()+"/api/config", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ctype)
			req.Header.Set(loopback.TokenHeader, s.Token())
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want != 200 {
				var eb httpjson.ErrorBody
				if json.NewDecoder(resp.Body).Decode(&eb); eb.Error == "" {
					t.Error("error answer has no message")
				}
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			for k, v := range tt.check {
				if b.cfg[k] != v {
					t.Errorf("%s = %q, want %q", k, b.cfg[k], v)
				}
			}
		})
	}
}

func TestClient(t *testing.T) {
	b := newFake()
	_, info := start(t, b)
	c, err := Dial(info)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := c.Pause(ctx)
	if err != nil || st.State != "paused" || st.Reasons[0] != "Paused by you" {
		t.Fatalf("Pause: %+v, %v", st, err)
	}
	if st, err = c.Status(ctx); err != nil || st.State != "paused" {
		t.Fatalf("Status: %+v, %v", st, err)
	}
	if st, err = c.Resume(ctx); err != nil || st.State != "running" {
		t.Fatalf("Resume: %+v, %v", st, err)
	}
	until, err := c.Snooze(ctx, "tomorrow")
	if err != nil || until.IsZero() || b.snoozed != "tomorrow" {
		t.Fatalf("Snooze: %v, %v (backend got %q)", until, err, b.snoozed)
	}
	raw, err := c.SetConfig(ctx, Change{"download", "200KB/s"}, Change{"threads", "2"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if json.Unmarshal(raw, &got); got["download"] != "200KB/s" || got["threads"] != "2" {
		t.Fatalf("SetConfig returned %s", raw)
	}
	_, err = c.SetConfig(ctx, Change{"colour", "blue"})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != 400 || !strings.Contains(ae.Message, `unknown setting "colour"`) {
		t.Fatalf("bad setting: %v", err)
	}
	wrong := NewClient(loopback.Info{URL: c.URL(), Token: "wrong"})
	if _, err := wrong.Pause(ctx); !errors.As(err, &ae) || ae.Code != 401 {
		t.Fatalf("wrong token: %v", err)
	}
}

func TestNotRunning(t *testing.T) {
	dir := t.TempDir()
	if _, err := Dial(filepath.Join(dir, "api.json")); !errors.Is(err, loopback.ErrNotRunning) {
		t.Fatalf("missing api.json: %v", err)
	}
	// A stale file pointing at a closed port (not one a port 0 listener
	// had: the system may hand that to another listener at once).
	url := fmt.Sprintf("http://127.0.0.1:%d", testport.Fixed(t))
	path := filepath.Join(dir, "api.json")
	if err := loopback.WriteInfo(path, loopback.Info{URL: url, Token: "x"}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("api.json mode %v", fi.Mode().Perm())
	}
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status(context.Background()); !errors.Is(err, loopback.ErrNotRunning) {
		t.Fatalf("stale api.json: %v", err)
	}
}

// TestPortTaken: the configured port in use, a server with Fallback takes
// a free one and says so; one without fails with the port in the error.
func TestPortTaken(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	if _, err := Listen(newFake(), Options{Port: port}); err == nil || !strings.Contains(err.Error(), fmt.Sprint(port)) {
		t.Fatalf("port %d taken, no fallback: %v, want an error naming it", port, err)
	}
	s, err := Listen(newFake(), Options{Port: port, Fallback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.ln.Close()
	if !s.FellBack() || s.URL() == fmt.Sprintf("http://127.0.0.1:%d", port) {
		t.Fatalf("fell back %v at %s, want another port than %d", s.FellBack(), s.URL(), port)
	}
	busy.Close()
	s2, err := Listen(newFake(), Options{Port: port, Fallback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.ln.Close()
	if s2.FellBack() || s2.URL() != fmt.Sprintf("http://127.0.0.1:%d", port) {
		t.Fatalf("port free again: fell back %v at %s", s2.FellBack(), s2.URL())
	}
}
