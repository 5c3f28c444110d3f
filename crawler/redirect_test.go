package crawler

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

func TestCrossHostRedirects(t *testing.T) {
	other := newSite(t, pages(map[string]string{"/": html(links("/x")), "/x": html("x on the other host")}))
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, html(links("/away")))
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	})
	s := newSite(t, mux)

	t.Run("seed redirect adopts the host", func(t *testing.T) {
		res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/moved"}, MaxDepth: 1})
		p := sink.byURL(s.URL + "/moved")
		if p == nil || p.FinalURL != other.URL+"/" || p.Status != 200 {
			t.Fatalf("seed page = %+v", p)
		}
		if len(other.requests("/x")) != 1 || res.Stats.PagesFetched != 2 {
			t.Fatalf("links on the adopted host not followed: %v", other.requests(""))
		}
		if len(other.requests("/robots.txt")) != 1 {
			t.Fatal("robots.txt of the adopted host not fetched")
		}
	})
	t.Run("under a lease a seed redirect is reported, not followed", func(t *testing.T) {
		before := len(other.requests(""))
		host := strings.TrimPrefix(s.URL, "http://")
		lease := task.Lease{Host: host, Epoch: 1, Expires: time.Now().Add(time.Hour)}
		res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/moved"}, MaxDepth: 1, Lease: lease})
		if p := sink.byURL(s.URL + "/moved"); p == nil || p.Status != 301 || p.FinalURL != other.URL+"/" {
			t.Fatalf("seed page = %+v", p)
		}
		if fmt.Sprint(res.InterSite) != fmt.Sprint([]string{other.URL + "/"}) {
			t.Fatalf("InterSite = %v", res.InterSite)
		}
		if got := other.requests(""); len(got) != before {
			t.Fatalf("the other host, under a lease of its own, was contacted: %v", got[before:])
		}
	})
	t.Run("other redirects become inter-site URLs", func(t *testing.T) {
		before := len(other.requests(""))
		res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
		if p := sink.byURL(s.URL + "/away"); p == nil || p.Status != 302 || p.FinalURL != other.URL+"/elsewhere" {
			t.Fatalf("redirecting page = %+v", p)
		}
		if fmt.Sprint(res.InterSite) != fmt.Sprint([]string{other.URL + "/elsewhere"}) {
			t.Fatalf("InterSite = %v", res.InterSite)
		}
		if len(other.requests("")) != before {
			t.Fatal("the other host was contacted")
		}
	})
}

type countingGate struct{ n atomic.Int32 }

func (g *countingGate) Wait(ctx context.Context) error {
	g.n.Add(1)
	return ctx.Err()
}

func TestGateBeforeEveryRequest(t *testing.T) {
	s := newSite(t, pages(map[string]string{"/": html(links("/a", "/b")), "/a": html("a"), "/b": html("b")}))
	cfg := testConfig(t)
	g := &countingGate{}
	cfg.Gate = g
	runTask(t, cfg, &task.Task{Seeds: []string{s.URL + "/"}, MaxDepth: 1})
	if got, want := int(g.n.Load()), len(s.requests("")); got != want || want != 4 {
		t.Fatalf("gate consulted %d times for %d requests", got, want)
	}
}

func TestRetryAfterTooLongStops(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	s := newSite(t, mux)
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}})
	if !strings.HasPrefix(res.Stopped, "server asked to retry after") || sink.pages[0].Error != "http_503" {
		t.Fatalf("stopped %q, page %+v", res.Stopped, sink.pages[0])
	}
	if n := len(s.requests("/")); n != 2 {
		t.Fatalf("server saw %d requests, want robots.txt and one try", n)
	}
}

func TestReadBodyEncodings(t *testing.T) {
	text := []byte(strings.Repeat("some page text ", 50))
	var gz, zl, raw bytes.Buffer
	gw := gzip.NewWriter(&gz)
	_, _ = gw.Write(text)
	_ = gw.Close()
	zw := zlib.NewWriter(&zl)
	_, _ = zw.Write(text)
	_ = zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.DefaultCompression)
	_, _ = fw.Write(text)
	_ = fw.Close()
	for _, tc := range []struct {
		name, encoding string
		body           []byte
		want           error
	}{
		{"identity", "", text, nil},
		{"gzip", "gzip", gz.Bytes(), nil},
		{"x-gzip", "X-Gzip", gz.Bytes(), nil},
		{"zlib deflate", "deflate", zl.Bytes(), nil},
		{"raw deflate", "deflate", raw.Bytes(), nil},
		{"brotli refused", "br", text, ErrContentEncoding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readBody(bytes.NewReader(tc.body), tc.encoding, 1<<20, -1)
			if !errors.Is(err, tc.want) {
				t.Fatalf("readBody = %v, want %v", err, tc.want)
			}
			if tc.want == nil && !bytes.Equal(got, text) {
				t.Fatalf("decoded %q", got)
			}
		})
	}
	if _, err := readBody(io.LimitReader(bytes.NewReader(text), 1<<20), "", 10, int64(len(text))); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
}

func TestConcurrentRuns(t *testing.T) {
	c := New(testConfig(t))
	var sites [3]*site
	for i := range sites {
		sites[i] = newSite(t, pages(map[string]string{"/": html(links("/a", "/b")), "/a": html("<p>a</p>"), "/b": html("<p>b</p>")}))
	}
	errs := make(chan error, len(sites))
	for _, s := range sites {
		go func() {
			res, err := c.Run(context.Background(), &task.Task{ID: "t", Seeds: []string{s.URL + "/"}, MaxDepth: 1}, &memSink{})
			if err == nil && res.Stats.PagesFetched != 3 {
				err = fmt.Errorf("fetched %d pages", res.Stats.PagesFetched)
			}
			errs <- err
		}()
	}
	for range sites {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range sites {
		s.checkOneConnection(t)
	}
}

func TestRobotsRedirectToForbiddenAddress(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.168.0.1/robots.txt", http.StatusFound)
	})
	mux.Handle("/", pages(map[string]string{"/": html("home")}))
	s := newSite(t, mux)
	res, sink := runTask(t, testConfig(t), &task.Task{Seeds: []string{s.URL + "/"}})
	if res.Stats.PagesFetched != 1 || sink.pages[0].Error != "" || res.Stopped != "" {
		t.Fatalf("stopped %q, pages %+v: a robots.txt redirected to a forbidden address means no robots.txt", res.Stopped, sink.pages)
	}
}
