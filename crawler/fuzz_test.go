package crawler

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"strings"
	"testing"
	"time"
)

// FuzzReadBody feeds arbitrary bytes through every Content-Encoding the
// crawler accepts: it must never panic or return more than the cap.
func FuzzReadBody(f *testing.F) {
	var gz, zl bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bytes.Repeat([]byte("hello "), 100))
	_ = zw.Close()
	lw := zlib.NewWriter(&zl)
	_, _ = lw.Write([]byte("hello"))
	_ = lw.Close()
	f.Add(gz.Bytes(), "gzip")
	f.Add(zl.Bytes(), "deflate")
	f.Add([]byte("plain"), "")
	f.Add([]byte{0x78, 0x9c, 0xff}, "deflate")
	f.Add([]byte("x"), "br")
	f.Fuzz(func(t *testing.T, body []byte, encoding string) {
		const limit = 1000
		out, err := readBody(bytes.NewReader(body), encoding, limit, int64(len(body)))
		if len(out) > limit {
			t.Fatalf("read %d bytes past the %d cap", len(out), limit)
		}
		if err == nil && (encoding == "" || encoding == "identity") && !bytes.Equal(out, body) {
			t.Fatalf("identity body changed")
		}
	})
}

// FuzzHeaders checks the Retry-After and X-Robots-Tag readers on arbitrary
// header values.
func FuzzHeaders(f *testing.F) {
	f.Add("120", "noindex, nofollow")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT", "hivecrawl: none")
	f.Add("-1", "unavailable_after: 2020-01-01")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retry, tag string) {
		if d, ok := retryAfter(retry, now); d < 0 || d > 24*time.Hour || (!ok && d != 0) {
			t.Fatalf("retryAfter(%q) = %v, %v", retry, d, ok)
		}
		robotsTag([]string{tag}, "hivecrawl")
	})
}

// FuzzParseRobots: any robots.txt parses without panicking, and the
// Sitemap: values it keeps are bounded, trimmed and non-empty.
func FuzzParseRobots(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: http://a.example/s.xml\n"))
	f.Add([]byte("sitemap:\nSITE-MAP: x\nuser-agent: hivecrawl\nallow: /%zz\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := parseRobots(body, "hivecrawl")
		if len(r.sitemaps) > maxRobotsSitemaps {
			t.Fatalf("%d sitemaps kept", len(r.sitemaps))
		}
		for _, s := range r.sitemaps {
			if s == "" || strings.TrimSpace(s) != s {
				t.Fatalf("sitemap %q", s)
			}
		}
	})
}
