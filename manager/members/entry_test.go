package members

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/frame"
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

// TestZoneClaimsRefused: what a peer holds is the zone map's to say. A
// request naming no operation, as clients older than certified zones
// sent with the zones they said they held, is refused and makes nobody a
// member; one that names zones beside an operation is dropped unread.
func TestZoneClaimsRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := newZoneManager(t)
	a, liar := newHost(t), newHost(t)
	m.op(ctx, t, a, entry.Request{Op: entry.OpJoin, Point: []float64{0.2, 0.2, 0.2}})

	if got := m.reg.Answer(liar.ID(), entry.Request{Coord: []float64{1, 2}, Capacity: 9}); got.Refused != entry.RefusedNoOp || len(got.Certs) != 0 {
		t.Fatalf("a request without an operation answered %+v, want refused", got)
	}
	if err := liar.Connect(ctx, m.h.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	type legacy struct {
		Member bool        `json:"member"`
		Zones  []entry.Box `json:"zones"`
		Op     string      `json:"op,omitempty"`
	}
	whole := []entry.Box{{Lo: []float64{0, 0, 0}, Hi: []float64{1, 1, 1}}}
	for _, req := range []legacy{{Member: true, Zones: whole}, {Member: true, Zones: whole, Op: entry.OpRenew}} {
		var ans entry.Answer
		if err := frame.Call(ctx, liar, m.h.ID(), entry.Protocol, req, &ans, entry.MaxMessageSize, entry.Timeout); err == nil {
			t.Errorf("a request claiming the whole space (op %q) was answered: %+v", req.Op, ans)
		}
	}
	for _, mb := range m.reg.Reported() {
		if mb.ID == liar.ID() {
			t.Fatalf("the liar was recorded as a member: %+v", mb)
		}
	}
	if len(m.z.Zones(liar.ID())) != 0 || len(m.z.Zones(a.ID())) == 0 {
		t.Fatalf("after the claims: the liar holds %v, a %v", m.z.Zones(liar.ID()), m.z.Zones(a.ID()))
	}
}

// TestSharedMembers: a member that renewed with one manager is known to
// another manager that merged it from the shared database, with the
// addresses the first reached it at, until its membership lapses; the
// other manager does not hand it on as its own.
func TestSharedMembers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m1 := newZoneManager(t)
	m2 := newHost(t)
	r2 := NewRegistry(m2, m1.clock)
	member := newHost(t)
	m1.op(ctx, t, member, entry.Request{Op: entry.OpJoin, Point: []float64{0.5, 0.5, 0.5}})
	// Its addresses come with libp2p's identify exchange, right after it
	// connected; until then it is not handed on.
	since := m1.clock().Add(-time.Second)
	var local []Member
	for local = m1.reg.Local(since); len(local) == 0 && ctx.Err() == nil; local = m1.reg.Local(since) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(local) != 1 || local[0].ID != member.ID() || len(local[0].Addrs) == 0 || len(local[0].Zones) != 1 {
		t.Fatalf("Local = %+v, want the member with its zone and addresses", local)
	}
	if again := m1.reg.Local(m1.clock()); len(again) != 0 {
		t.Fatalf("Local since the renewal = %+v, want none", again)
	}
	r2.Merge(local)
	got := r2.Reported()
	if len(got) != 1 || got[0].ID != member.ID() || !got[0].Remote {
		t.Fatalf("the other manager knows %+v, want the member, merged", got)
	}
	if len(m2.Peerstore().Addrs(member.ID())) == 0 {
		t.Error("the merged member's addresses are not in the other manager's peerstore")
	}
	if len(r2.Local(m1.clock().Add(-time.Minute))) != 0 {
		t.Fatal("a merged member is handed on as local")
	}
	// Its membership lapses there as anywhere.
	m1.advance(memberFor + time.Second)
	if got := r2.Reported(); len(got) != 0 {
		t.Fatalf("after the membership lapsed the other manager knows %+v", got)
	}
}
