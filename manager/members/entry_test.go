package members

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	lphost "github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

var quiet = slog.New(slog.DiscardHandler)

func newHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// askManager connects h to the manager's host mh and asks it for entry.
func askManager(ctx context.Context, t *testing.T, h lphost.Host, mh *host.Host, member bool) entry.Answer {
	t.Helper()
	if err := h.Connect(ctx, mh.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	a, err := entry.Ask(ctx, h, mh.ID(), entry.Request{Member: member})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFirstPeer: the first volunteer to ask is told to start the overlay,
// one asking right after is sent to it (never told to start a second
// overlay), and once members confirm, askers get members to join through
// and members are not offered to themselves, nor once disconnected,
// though their membership lasts until it lapses.
func TestFirstPeer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mh := newHost(t)
	reg := NewRegistry(mh, time.Now, rand.New(rand.NewPCG(1, 2)))
	mh.SetStreamHandler(entry.Protocol, reg.Handle)
	ask := func(h *host.Host, member bool) entry.Answer {
		t.Helper()
		return askManager(ctx, t, h, mh, member)
	}
	a, b, c := newHost(t), newHost(t), newHost(t)
	if got := ask(a, false); !got.First {
		t.Fatalf("first asker got %+v, want First", got)
	}
	got := ask(b, false)
	if got.First || len(got.Entries) != 1 || got.Entries[0].ID != a.ID().String() {
		t.Fatalf("second asker got %+v, want to be sent to the first peer %s", got, a.ID())
	}
	ai, err := got.Entries[0].AddrInfo()
	if err != nil || len(ai.Addrs) == 0 {
		t.Fatalf("entry %+v: %v", ai, err)
	}
	if got := ask(a, true); got.First || len(got.Entries) != 0 {
		t.Fatalf("the only member renewing got %+v, want nothing", got)
	}
	ask(b, true)
	got = ask(c, false)
	ids := map[string]bool{}
	for _, e := range got.Entries {
		ids[e.ID] = true
	}
	if got.First || len(ids) != 2 || !ids[a.ID().String()] || !ids[b.ID().String()] {
		t.Fatalf("third asker got %+v, want the two members", got)
	}
	if m := reg.Members(); len(m) != 2 {
		t.Fatalf("members %v, want 2", m)
	}
	// A member that disconnects is no longer offered.
	mh.Network().ClosePeer(a.ID())
	a.Network().ClosePeer(mh.ID())
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := reg.Members()
		if len(m) == 1 && m[0] == b.ID() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("members %v after %s disconnected", m, peer.ID(a.ID()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Its membership has not lapsed, though: the hashing baseline's ring
	// keeps it.
	if r := reg.Reported(); len(r) != 2 {
		t.Fatalf("reported members %+v after a disconnection, want both", r)
	}
}

// TestHoldFirst: a registry told to hold names no first peer before the
// hold ends (members of a running overlay renew meanwhile, and an asker is
// then sent to them), and names one after it.
func TestHoldFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mh := newHost(t)
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	reg := NewRegistry(mh, clock, rand.New(rand.NewPCG(1, 2)))
	reg.HoldFirst(now.Add(entry.RenewEvery))
	mh.SetStreamHandler(entry.Protocol, reg.Handle)
	ask := func(h *host.Host, member bool) entry.Answer {
		t.Helper()
		return askManager(ctx, t, h, mh, member)
	}
	a, b, c := newHost(t), newHost(t), newHost(t)
	if got := ask(a, false); got.First || len(got.Entries) != 0 {
		t.Fatalf("asker during the hold got %+v, want nothing", got)
	}
	// A member of the running overlay renews: askers are sent to it.
	ask(b, true)
	if got := ask(a, false); got.First || len(got.Entries) != 1 || got.Entries[0].ID != b.ID().String() {
		t.Fatalf("asker after a renewal got %+v, want the member %s", got, b.ID())
	}
	// No member renews on a fresh registry with its hold over: the asker
	// starts the overlay.
	reg2 := NewRegistry(mh, clock, rand.New(rand.NewPCG(3, 4)))
	reg2.HoldFirst(now.Add(entry.RenewEvery))
	mh.SetStreamHandler(entry.Protocol, reg2.Handle)
	if got := ask(c, false); got.First {
		t.Fatalf("asker during the hold got %+v, want no First", got)
	}
	now = now.Add(entry.RenewEvery)
	if got := ask(c, false); !got.First {
		t.Fatalf("asker after the hold got %+v, want First", got)
	}
}

// TestSharedMembers: a member that renewed with one manager is offered by
// another manager that merged it from the shared database, with the
// addresses the first reached it at, and no first peer is named while it
// lasts.
func TestSharedMembers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	m1, m2 := newHost(t), newHost(t)
	r1 := NewRegistry(m1, clock, rand.New(rand.NewPCG(1, 2)))
	r2 := NewRegistry(m2, clock, rand.New(rand.NewPCG(3, 4)))
	m1.SetStreamHandler(entry.Protocol, r1.Handle)
	m2.SetStreamHandler(entry.Protocol, r2.Handle)
	member, asker := newHost(t), newHost(t)
	askManager(ctx, t, member, m1, true)
	// Its addresses come with libp2p's identify exchange, right after it
	// connected; until then it is not handed on.
	var local []Member
	for local = r1.Local(now.Add(-time.Second)); len(local) == 0 && ctx.Err() == nil; local = r1.Local(now.Add(-time.Second)) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(local) != 1 || local[0].ID != member.ID() || len(local[0].Addrs) == 0 {
		t.Fatalf("Local = %+v, want the member with its addresses", local)
	}
	if again := r1.Local(now); len(again) != 0 {
		t.Fatalf("Local since the renewal = %+v, want none", again)
	}
	r2.Merge(local)
	got := askManager(ctx, t, asker, m2, false)
	if got.First || len(got.Entries) != 1 || got.Entries[0].ID != member.ID().String() || len(got.Entries[0].Addrs) == 0 {
		t.Fatalf("the other manager answered %+v, want the member with addresses", got)
	}
	if len(r2.Local(now.Add(-time.Minute))) != 0 {
		t.Fatal("a merged member is handed on as local")
	}
	// Its membership lapses there as anywhere.
	now = now.Add(memberFor + time.Second)
	if got := askManager(ctx, t, asker, m2, false); !got.First {
		t.Fatalf("after the membership lapsed: %+v, want First", got)
	}
}

// natHost is a libp2p host on 127.0.0.1 that announces only addr, as a
// volunteer behind a NAT announces addresses the manager does not see it
// come from.
// With addr empty it announces nothing, as one behind a home router does
// to a public manager, which drops the private addresses it announces.
func natHost(t *testing.T, addr string) lphost.Host {
	t.Helper()
	var announced []ma.Multiaddr
	if addr != "" {
		announced = []ma.Multiaddr{ma.StringCast(addr)}
	}
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"),
		libp2p.AddrsFactory(func([]ma.Multiaddr) []ma.Multiaddr { return announced }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestFirstPeerDialable: while the overlay is empty, a volunteer behind a
// NAT is not named the first peer until natFirstWait has passed with no
// other asking, one that others can dial is at once; and entries list the
// dialable members first.
func TestFirstPeerDialable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mh := newHost(t)
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	reg := NewRegistry(mh, clock, rand.New(rand.NewPCG(1, 2)))
	mh.SetStreamHandler(entry.Protocol, reg.Handle)
	// Each asks at once on a new connection: the manager waits for
	// identify before it judges.
	ask := func(h lphost.Host, member bool) entry.Answer {
		t.Helper()
		return askManager(ctx, t, h, mh, member)
	}
	natted, natted2, direct := natHost(t, "/ip4/192.0.2.1/tcp/4001"), natHost(t, "/ip4/192.0.2.2/tcp/4001"), newHost(t)
	if got := ask(natted, false); got.First || len(got.Entries) != 0 {
		t.Fatalf("a peer behind a NAT asking first got %+v, want to wait", got)
	}
	if !reg.behindNAT(natted.ID()) || reg.behindNAT(direct.ID()) {
		t.Fatalf("behind a NAT: %v and %v, want true and false", reg.behindNAT(natted.ID()), reg.behindNAT(direct.ID()))
	}
	if got := ask(direct, false); !got.First {
		t.Fatalf("a dialable peer got %+v, want First", got)
	}
	ask(direct, true)
	ask(natted, true)
	for range 5 {
		got := ask(natted2, false)
		if len(got.Entries) != 2 || got.Entries[0].ID != direct.ID().String() {
			t.Fatalf("entries %+v, want the dialable member %s first", got.Entries, direct.ID())
		}
	}

	// With nobody dialable asking, one behind a NAT starts the overlay
	// once natFirstWait has passed.
	reg2 := NewRegistry(mh, clock, rand.New(rand.NewPCG(3, 4)))
	mh.SetStreamHandler(entry.Protocol, reg2.Handle)
	if got := ask(natted2, false); got.First {
		t.Fatalf("asking first behind a NAT got %+v, want to wait", got)
	}
	now = now.Add(natFirstWait)
	if got := ask(natted2, false); !got.First {
		t.Fatalf("after %v with nobody else asking, got %+v, want First", natFirstWait, got)
	}

	// One that announces no address at all is behind a NAT too.
	silent := natHost(t, "")
	reg3 := NewRegistry(mh, clock, rand.New(rand.NewPCG(5, 6)))
	mh.SetStreamHandler(entry.Protocol, reg3.Handle)
	if got := ask(silent, false); got.First {
		t.Fatalf("a peer announcing no address asking first got %+v, want to wait", got)
	}
	if !reg3.behindNAT(silent.ID()) {
		t.Error("a peer announcing no address is not taken to be behind a NAT")
	}
}
