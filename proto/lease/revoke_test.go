package lease

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/frame"
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

// TestRevokeOneLease: a revocation naming a task reaches the crawler
// whole. A crawler that predates the field decodes strictly and refuses
// it (the manager then relies on the next renewal) rather than reading
// it as the end of every lease; a withdrawal, which names no task, is
// the message such a crawler knows.
func TestRevokeOneLease(t *testing.T) {
	ctx := context.Background()
	mgr, crawler := newHost(t), newHost(t)
	got := make(chan Revocation, 1)
	crawler.SetStreamHandler(RevokeProtocol, RevokeHandler(mgr.ID(), func(r Revocation) { got <- r }))
	if err := mgr.Connect(ctx, crawler.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	one := Revocation{Reason: "the site opted out", TaskID: "www.example.com/3/0", Host: "www.example.com"}
	if err := Revoke(ctx, mgr, crawler.ID(), one); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r != one {
		t.Fatalf("the crawler got %+v, want %+v", r, one)
	}
	type before struct {
		Reason string `json:"reason"`
	}
	b, _ := json.Marshal(one)
	if err := frame.Strict(b, &before{}); err == nil {
		t.Error("a crawler without TaskID would take a one-lease revocation for the end of all")
	}
	b, _ = json.Marshal(Revocation{Reason: "key withdrawn"})
	if err := frame.Strict(b, &before{}); err != nil {
		t.Errorf("a withdrawal no longer reads as before: %v", err)
	}
	if err := (&Revocation{Host: "x.example"}).Validate(); err == nil {
		t.Error("a revocation naming a host without its task validated")
	}
}
