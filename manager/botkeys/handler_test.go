package botkeys

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/botauth"
)

func TestHandler(t *testing.T) {
	r := open(t, t.TempDir())
	pub, _ := newKey(t)
	keyid, err := r.Certify("peerA", pub, t0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()

	get := func(method, path string, h http.Header) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}

	resp, body := get(http.MethodGet, botauth.DirectoryPath, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET directory: %s", resp.Status)
	}
	for h, want := range map[string]string{
		"Content-Type":  botauth.DirectoryContentType,
		"Cache-Control": "public, max-age=60",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	d, err := botauth.ParseDirectory(body)
	if err != nil {
		t.Fatalf("served directory %s: %v", body, err)
	}
	if k, ok := d.Lookup(keyid); !ok || !k.Equal(pub) {
		t.Fatalf("served directory %s lacks the certified key", body)
	}
	etag := resp.Header.Get("ETag")

	cases := []struct {
		name, method, path string
		header             http.Header
		want               int
	}{
		{"HEAD", http.MethodHead, botauth.DirectoryPath, nil, http.StatusOK},
		{"unchanged", http.MethodGet, botauth.DirectoryPath, http.Header{"If-None-Match": {etag}}, http.StatusNotModified},
		{"POST", http.MethodPost, botauth.DirectoryPath, nil, http.StatusMethodNotAllowed},
		{"other path", http.MethodGet, "/", nil, http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, _ := get(c.method, c.path, c.header)
			if resp.StatusCode != c.want {
				t.Errorf("%s %s: %s, want %d", c.method, c.path, resp.Status, c.want)
			}
		})
	}

	if err := r.Withdraw(keyid, "left", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	resp, body = get(http.MethodGet, botauth.DirectoryPath, http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"keys":[]}` {
		t.Errorf("after withdrawal: %s %s, want 200 and no keys", resp.Status, body)
	}
}

// TestHandlerUnreadable: when the store cannot be read, the handler says
// so rather than serving an older copy, which could list a withdrawn key.
func TestHandlerUnreadable(t *testing.T) {
	r := open(t, t.TempDir())
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	r.Close()
	resp, err := http.Get(srv.URL + botauth.DirectoryPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("directory of a closed store: %s, want 503", resp.Status)
	}
}
