package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"code.dny.dev/ssrf"

	"github.com/hivecrawl/hivecrawl/internal/netguard"
	"github.com/hivecrawl/hivecrawl/task"
)

// gzipBomb is 64 MiB of zeros as 64 concatenated gzip members of 1 MiB
// each, about 64 KiB on the wire (gzip readers read multi-member streams).
func gzipBomb(t testing.TB) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(b.Bytes(), 64)
}

func TestHostileServers(t *testing.T) {
	bomb := gzipBomb(t)
	const maxBody = 256 << 10
	for _, tc := range []struct {
		name    string
		path    string
		handler http.HandlerFunc
		kind    string
		maxDown int64 // bytes the crawl may read at most
		timeout time.Duration
	}{
		{"1 byte/s body cut off by page timeout", "/slow", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			for i := 0; i < 100; i++ {
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-time.After(time.Second):
				case <-r.Context().Done():
					return
				}
			}
		}, "timeout", 100, 500 * time.Millisecond},
		{"huge body capped", "/huge", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", fmt.Sprint(8<<20))
			_, _ = w.Write(bytes.Repeat([]byte("a"), 8<<20))
		}, "body_too_large", maxBody + 2*ReadChunk, 0},
		{"endless chunked body capped", "/endless", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			chunk := bytes.Repeat([]byte("<p>again</p>"), 1000)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "body_too_large", maxBody + 4*ReadChunk, 0},
		{"gzip bomb stopped at the cap", "/bomb", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb)
		}, "body_too_large", int64(len(bomb)), 0},
		{"image not read", "/img.png", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Length", fmt.Sprint(4<<20))
			_, _ = w.Write(make([]byte, 4<<20))
		}, "content_type", drainLimit, 0},
		{"redirect loop detected", "/loop/a", func(w http.ResponseWriter, r *http.Request) {
			next := map[string]string{"/loop/a": "/loop/b", "/loop/b": "/loop/a"}[r.URL.Path]
			http.Redirect(w, r, next, http.StatusFound)
		}, "redirect_loop", 4096, 0},
		{"too many redirects", "/hop/0", func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusMovedPermanently)
		}, "too_many_redirects", 8192, 0},
		{"redirect into a repeating path rejected", "/t/x", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/t/t/t/t/x", http.StatusFound)
		}, "url_trap", 4096, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/robots.txt", http.NotFound)
			mux.HandleFunc("/", tc.handler)
			s := newSite(t, mux)
			cfg := testConfig(t)
			// Only the slow body waits for the page timeout: the other
			// cases end on their own rule, and a short timeout would cut
			// them first on a busy machine (a race build reads 256 KiB
			// in well over 0.5 s at a load of 20 a core).
			if tc.timeout != 0 {
				cfg.PageTimeout = tc.timeout
			}
			cfg.MaxBodyBytes = maxBody
			res, sink := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + tc.path}})
			p := sink.byURL(s.URL + tc.path)
			if p == nil || p.Error != tc.kind || res.Stats.Errors[tc.kind] != 1 {
				t.Fatalf("page = %+v, errors %v; want error %s", p, res.Stats.Errors, tc.kind)
			}
			if res.Stats.BytesDown > tc.maxDown+1024 {
				t.Fatalf("read %d bytes, want at most %d", res.Stats.BytesDown, tc.maxDown)
			}
		})
	}
}

func TestRepeatingSegmentsNotQueued(t *testing.T) {
	s := newSite(t, pages(map[string]string{
		"/":         html(links("/a/b/a/b/a/b/a/b/", "/a/a/a/x", "/ok/ok/ok")),
		"/a/a/a/x":  html("three is fine"),
		"/ok/ok/ok": html("fine"),
	}))
	runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 2})
	if got := s.requests("/a/b"); len(got) != 0 {
		t.Fatalf("fetched trap URL %v", got[0].Path)
	}
	if len(s.requests("/a/a/a/x")) != 1 || len(s.requests("/ok/ok/ok")) != 1 {
		t.Fatalf("segments repeated at most 3 times must be fetched; saw %v", s.requests(""))
	}
}

func TestForbiddenAddress(t *testing.T) {
	t.Run("loopback refused without AllowLoopback", func(t *testing.T) {
		s := newSite(t, pages(map[string]string{"/": html("x")}))
		cfg := testConfig(t)
		cfg.AllowLoopback = false
		c := New(cfg)
		f := newFetcher(&c.cfg)
		defer f.close()
		_, err := f.fetch(context.Background(), request{URL: mustURL(t, s.URL+"/")})
		if !errors.Is(err, ErrForbiddenAddress) || !errors.Is(err, ssrf.ErrProhibitedIP) {
			t.Fatalf("fetch = %v, want ErrForbiddenAddress", err)
		}
		if n := s.conns.Load(); n != 0 {
			t.Fatalf("server accepted %d connections, want none", n)
		}
		res, sink := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}})
		if res.Stopped != "forbidden address" || sink.pages[0].Error != "forbidden_address" || s.conns.Load() != 0 {
			t.Fatalf("Run on a loopback seed: stopped %q, pages %+v, %d connections", res.Stopped, sink.pages, s.conns.Load())
		}
	})
	t.Run("redirect to a private address refused before dialing", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.HandleFunc("/robots.txt", http.NotFound)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://10.0.0.1:9/inside", http.StatusFound)
		})
		s := newSite(t, mux)
		cfg := testConfig(t)
		cfg.PageTimeout = time.Hour // a real dial to 10.0.0.1 would hang here
		res, sink := runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}})
		p := sink.byURL(s.URL + "/")
		if p == nil || p.Error != "forbidden_address" || res.Stats.Errors["forbidden_address"] != 1 {
			t.Fatalf("page = %+v, errors %v", p, res.Stats.Errors)
		}
	})
}

func TestDialControl(t *testing.T) {
	for _, tc := range []struct {
		addr          string
		strict, loose bool // allowed without / with AllowLoopback
	}{
		{"93.184.216.34:80", true, true},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", true, true},
		{"127.0.0.1:8080", false, true},
		{"127.9.9.9:80", false, true},
		{"[::1]:80", false, true},
		{"10.0.0.1:80", false, false},
		{"172.16.0.1:80", false, false},
		{"192.168.1.1:80", false, false},
		{"169.254.169.254:80", false, false},
		{"224.0.0.1:80", false, false},
		{"0.0.0.0:80", false, false},
		{"[fe80::1]:80", false, false},
		{"[fc00::1]:80", false, false},
		{"[::]:80", false, false},
		{"[::ffff:10.0.0.1]:80", false, false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			network := "tcp4"
			if ap := netip.MustParseAddrPort(tc.addr); ap.Addr().Is6() {
				network = "tcp6"
			}
			for _, allow := range []bool{false, true} {
				err := netguard.Control(netguard.Allowing(allow, false), ErrForbiddenAddress)(network, tc.addr, nil)
				want := tc.strict
				if allow {
					want = tc.loose
				}
				if (err == nil) != want {
					t.Errorf("allowLoopback=%v: dial %s err = %v, want allowed %v", allow, tc.addr, err, want)
				}
				if err != nil && !errors.Is(err, ErrForbiddenAddress) {
					t.Errorf("error %v does not wrap ErrForbiddenAddress", err)
				}
			}
		})
	}
}

func TestKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w", ErrTimeout), "timeout"},
		{&StatusError{Code: 503}, "http_503"},
		{fmt.Errorf("get: %w", &net.OpError{Op: "dial", Err: fmt.Errorf("%w: no", ErrForbiddenAddress)}), "forbidden_address"},
		{&net.DNSError{Err: "no such host", Name: "x"}, "dns"},
		{errors.New("read tcp: connection reset by peer"), "connection_reset"},
		{context.Canceled, "canceled"},
		{fmt.Errorf("redirect: %w", ErrTrap), "url_trap"},
		{errors.New("something else"), "network"},
	} {
		if got := Kind(tc.err); got != tc.want {
			t.Errorf("Kind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
