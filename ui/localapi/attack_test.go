package localapi

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi/apitest"
)

// fullBackend offers every optional part, so the server has every route.
type fullBackend struct {
	*fakeSolo
}

func (fullBackend) Events(context.Context, int) (EventLog, error) {
	return EventLog{File: "/home/someone/.local/state/hivecrawl/hivecrawl.log", Events: []Event{{Message: "Client started"}}}, nil
}

var (
	_ Solo   = fullBackend{}
	_ Events = fullBackend{}
)

// TestAttackSet sends every route of a server with every optional part
// (solo mode, the event log, a route added with Handle and a public one
// with HandlePublic) the attack set: only health and the public route
// answer without the token.
func TestAttackSet(t *testing.T) {
	s, _ := start(t, fullBackend{&fakeSolo{fakeBackend: newFake()}})
	s.Handle("GET /extra", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret data") }))
	s.HandlePublic("GET /page.css", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "body{}") }))
	patterns, public := s.Routes()
	for _, want := range []string{"GET /api/status", "GET /api/events", "GET /api/solo/text", "POST /api/config", "GET /extra"} {
		if !strings.Contains(strings.Join(patterns, "\n"), want) || public[want] {
			t.Errorf("route %q missing from Routes or public", want)
		}
	}
	if !public["GET /api/health"] || !public["GET /page.css"] {
		t.Errorf("public routes %v, want health and the page's file", public)
	}
	apitest.Run(t, s)
}

// TestMalformedPaths: a path that is not UTF-8 text answers 400, with or
// without the token, before any route sees it.
func TestMalformedPaths(t *testing.T) {
	s, _ := start(t, fullBackend{&fakeSolo{fakeBackend: newFake()}})
	s.HandlePublic("GET /", http.FileServerFS(fstest.MapFS{"index.html": {Data: []byte("<p>page")}}))
	addr := strings.TrimPrefix(s.URL(), "http://")
	for _, path := range []string{
		"/%c0%ae%c0%ae/etc/passwd", // overlong "../"
		"/%c0%ae",
		"/api/%ff",
		"/%e0%80%af",
		"/api/status%00",
		"/a%0ab",
		"/%zz",      // an invalid escape
		"/api/%",    // a cut-off escape
		"/api/st%2", // a short escape
	} {
		for _, token := range []bool{false, true} {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			req := "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n"
			if token {
				req += loopback.TokenHeader + ": " + s.Token() + "\r\n"
			}
			if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufioReader(conn), nil)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			resp.Body.Close()
			conn.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("GET %s (token %v): %d, want 400", path, token, resp.StatusCode)
			}
		}
	}
}

func bufioReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }
