package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/p2p/rtt"
	"github.com/hivecrawl/hivecrawl/testkit/p2ptest"
)

// TestNetworkMeasuresLoopbackHosts asks a network client started with
// AllowLoopback to measure a web host on 127.0.0.1, as the manager's
// locator does in the process swarm. Before the client handed its
// AllowLoopback to the RTT prober, every such measurement was refused and
// the manager placed every host by the hash of its name.
func TestNetworkMeasuresLoopbackHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 3 libp2p hosts")
	}
	s := startSwarm(t, 1, time.Hour, manager.AssignCAN)
	// The manager reaches the client as it reaches its members: through
	// the connection the client opened to it.
	s.waitMembers(t)
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := s.clients[0].net.h
	hostPort := strings.TrimPrefix(web.URL, "http://")
	// Another peer's request is refused: a volunteer measures for its
	// manager alone.
	h := p2ptest.Host(t)
	if err := h.Connect(ctx, client.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	if _, err := rtt.Ask(ctx, h, client.ID(), hostPort, 1); err == nil {
		t.Fatal("the client measured a host for a peer other than its manager")
	}
	resp, err := rtt.Ask(ctx, s.m.Host(), client.ID(), hostPort, 1)
	if err != nil {
		t.Fatalf("measure %s through the client: %v", hostPort, err)
	}
	if resp.MedianMicros == 0 || resp.Samples != 1 || resp.Coord == nil {
		t.Fatalf("answer %+v: want one sample, a median and the client's coordinate", resp)
	}
}
