package crawler

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestRawPages: a task with Raw set keeps, with each page whose text it
// uploads, the decoded body and the header fields that go with it; a
// task without keeps neither.
func TestRawPages(t *testing.T) {
	body := html(`<p>The raw body of the page, served gzipped.</p>` + links("/b"))
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("X-Served-By", "test")
			zw := gzip.NewWriter(w)
			zw.Write([]byte(body))
			zw.Close()
		default:
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(html("<p>Second page with its own words.</p>")))
		}
	}))
	for _, raw := range []bool{false, true} {
		_, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1, Raw: raw})
		p := sink.byURL(s.URL + "/")
		if p == nil || len(p.Text) == 0 {
			t.Fatalf("raw %v: no text for /: %+v", raw, p)
		}
		if !raw {
			if p.Raw != nil || p.Header != nil {
				t.Fatalf("raw body kept for a task that did not ask: %+v", p)
			}
			continue
		}
		got, err := textcodec.Decode(p.Raw, p.RawCompression)
		if err != nil || !bytes.Equal(got, []byte(body)) || p.RawBytes != len(body) {
			t.Fatalf("raw body %q (%d bytes declared), %v; want %q", got, p.RawBytes, err, body)
		}
		if ct := p.Header["Content-Type"]; len(ct) != 1 || !strings.HasPrefix(ct[0], "text/html") || p.Header["X-Served-By"][0] != "test" {
			t.Fatalf("header %v", p.Header)
		}
		for _, k := range []string{"Content-Encoding", "Content-Length", "Transfer-Encoding"} {
			if _, ok := p.Header[k]; ok {
				t.Errorf("header %s kept: %v", k, p.Header)
			}
		}
		if b := sink.byURL(s.URL + "/b"); b == nil || b.Raw == nil {
			t.Errorf("second page without its raw body: %+v", b)
		}
	}
}
