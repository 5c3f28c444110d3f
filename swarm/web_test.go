package swarm

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// TestServeWebPerAddr: with PerAddr 2, five hosts are served at three
// addresses, two by two in order, each on a port of its own, and the
// control API lists them and counts requests by address.
func TestServeWebPerAddr(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	info := filepath.Join(t.TempDir(), "web.json")
	served := make(chan error, 1)
	go func() {
		served <- ServeWeb(ctx, WebOptions{Hosts: 5, Seed: 1, Demo: fixture.DemoOptions{MaxPages: 8}, PerAddr: 2, Info: info}, slog.New(slog.DiscardHandler))
	}()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	c := &http.Client{Timeout: 10 * time.Second}
	var wi WebInfo
	deadline := time.Now().Add(30 * time.Second)
	for readJSONFile(info, &wi) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the web wrote no info file in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var hosts []fixture.HostInfo
	if err := getJSON(ctx, c, wi.Control+fixture.ControlHosts, "", &hosts); err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 5 {
		t.Fatalf("%d hosts, want 5", len(hosts))
	}
	addrs := map[string]bool{}
	for k, h := range hosts {
		ip, _, err := net.SplitHostPort(h.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if want := HostIP(k / 2); ip != want {
			t.Fatalf("host %d (%s) at %s, want %s", k, h.Name, ip, want)
		}
		if addrs[h.Addr] {
			t.Fatalf("two hosts at %s", h.Addr)
		}
		addrs[h.Addr] = true
	}
	res, err := c.Get(hosts[1].URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	w := &WebProc{Info: wi}
	byIP, err := w.MaxInFlightByIP(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if byIP[HostIP(0)] != 1 || len(byIP) != 1 {
		t.Fatalf("most in flight by address %v, want 1 at %s alone", byIP, HostIP(0))
	}
}
