package crawler

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// TestOneConnectionAcrossSchemes: http://h/ and https://h/ are one host,
// and the transport pools connections per scheme: a run that moves
// between them (a redirect to https, links on either) must close its
// connection on one before it opens one on the other. The servers listen
// on the default ports of 127.0.0.1, so both URLs name host h. A server
// learns of a close when its read of the connection ends, so each request
// waits for the other scheme's connections to be gone, up to closeSeen.
func TestOneConnectionAcrossSchemes(t *testing.T) {
	const (
		ip        = "127.0.0.1" // the test certificate's address
		closeSeen = 3 * time.Second
	)
	var (
		open       [2]atomic.Int32 // 0 http, 1 https
		overlapped atomic.Int32
	)
	track := func(i int) func(net.Conn, http.ConnState) {
		return func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				open[i].Add(1)
			case http.StateClosed, http.StateHijacked:
				open[i].Add(-1)
			}
		}
	}
	site := pages(map[string]string{
		"/":  html(links("https://"+ip+"/b", "/a")),
		"/a": html("a"),
		"/b": html(links("http://"+ip+"/c", "/d")),
		"/c": html("c"),
		"/d": html("d"),
	})
	serve := func(i int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			other := &open[1-i]
			deadline := time.Now().Add(closeSeen)
			for other.Load() > 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if other.Load() > 0 {
				overlapped.Add(1)
			}
			site.ServeHTTP(w, r)
		})
	}
	listen := func(port string) net.Listener {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, port))
		if err != nil {
			t.Skipf("cannot listen on %s:%s (needs root and the port free): %v", ip, port, err)
		}
		return l
	}
	plain := httptest.NewUnstartedServer(serve(0))
	plain.Listener = listen("80")
	plain.Config.ConnState = track(0)
	plain.Start()
	t.Cleanup(plain.Close)
	secure := httptest.NewUnstartedServer(serve(1))
	secure.Listener = listen("443")
	secure.Config.ConnState = track(1)
	secure.StartTLS()
	t.Cleanup(secure.Close)

	cfg := testConfig(t)
	cfg.RootCAs = x509.NewCertPool()
	cfg.RootCAs.AddCert(secure.Certificate())
	res, err := New(cfg).Run(context.Background(), &task.Task{ID: "schemes", Seeds: []string{"http://" + ip + "/"}, MaxDepth: 3, Delay: task.Duration(20 * time.Millisecond)}, &memSink{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.PagesFetched != 5 {
		t.Fatalf("fetched %d pages (errors %v); want 5 over both schemes", res.Stats.PagesFetched, res.Stats.Errors)
	}
	if n := overlapped.Load(); n > 0 {
		t.Fatalf("%d requests came while a connection on the other scheme stayed open; want none", n)
	}
}
