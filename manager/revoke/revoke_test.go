package revoke

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/lease"
)

// TestTellerReachesTheCrawlerAndStopsOnClose: a crawler that answers is
// told which lease ended, and why; one that never answers holds Close
// no longer than its libp2p dial does.
func TestTellerReachesTheCrawlerAndStopsOnClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, Logger: quiet}
	mgr, err := host.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Close()
	crawler, err := host.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer crawler.Close()
	got := make(chan lease.Revocation, 2)
	crawler.SetStreamHandler(lease.RevokeProtocol, lease.RevokeHandler(mgr.ID(), func(r lease.Revocation) { got <- r }))
	mgr.Peerstore().AddAddrs(crawler.ID(), crawler.Addrs(), time.Hour)

	tell := New(mgr, quiet)
	tell.Lease(crawler.ID(), "t1", "h.example")
	select {
	case r := <-got:
		if r.TaskID != "t1" || r.Host != "h.example" || r.Reason == "" {
			t.Fatalf("the crawler was told %+v, want task t1 on h.example with a reason", r)
		}
	case <-ctx.Done():
		t.Fatal("the crawler was never told its lease ended")
	}

	// A peer that is gone: the teller retries until Close stops it.
	gone, err := host.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	mgr.Peerstore().AddAddrs(gone.ID(), gone.Addrs(), time.Hour)
	gone.Close()
	tell.Lease(gone.ID(), "t2", "g.example")
	tell.All(gone.ID(), "withdrawn")
	done := make(chan struct{})
	go func() { tell.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(LeaseFor):
		t.Fatal("Close waited out the whole retry period")
	}
}
