package lease

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/hivecrawl/hivecrawl/p2p/host"
)

func newHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestRevoke: a crawler ends its leases on the manager's revocation, with
// the manager's reason, and ignores one from any other peer.
func TestRevoke(t *testing.T) {
	ctx := context.Background()
	mgr, crawler, other := newHost(t), newHost(t), newHost(t)
	got := make(chan Revocation, 2)
	crawler.SetStreamHandler(RevokeProtocol, RevokeHandler(mgr.ID(), func(r Revocation) { got <- r }))
	for _, h := range []*host.Host{mgr, other} {
		if err := h.Connect(ctx, crawler.AddrInfo()); err != nil {
			t.Fatal(err)
		}
	}
	if err := Revoke(ctx, other, crawler.ID(), Revocation{Reason: "forged"}); err == nil {
		t.Fatal("a revocation from a peer other than the manager was acknowledged")
	}
	if err := Revoke(ctx, mgr, crawler.ID(), Revocation{Reason: "2 results failed validation"}); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	select {
	case r := <-got:
		if r.Reason != "2 results failed validation" {
			t.Fatalf("the crawler ended its leases for %q, want the manager's reason", r.Reason)
		}
	default:
		t.Fatal("Revoke returned before the crawler ended its leases")
	}
	if len(got) != 0 {
		t.Fatalf("%d more revocations taken in, want none (the other peer's)", len(got))
	}
}
