package members

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	bolt "go.etcd.io/bbolt"

	"github.com/hivecrawl/hivecrawl/internal/boltfile"
	"github.com/hivecrawl/hivecrawl/internal/kv"
	"github.com/hivecrawl/hivecrawl/manager/zones"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/zonecert"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/frame"
)

// zoneManager is a manager's host serving entry requests with a zone map
// in a bbolt file, whose liveness checks ping over the host.
type zoneManager struct {
	h   *host.Host
	reg *Registry
	z   *zones.Authority
	key crypto.PrivKey

	mu  sync.Mutex
	now time.Time
}

func (m *zoneManager) clock() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

func (m *zoneManager) advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
}

func newZoneManager(t *testing.T) *zoneManager {
	t.Helper()
	m := &zoneManager{h: newHost(t), now: time.Unix(1_000_000, 0)}
	key, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	m.key = key
	s, err := kv.OpenBolt(filepath.Join(t.TempDir(), "zones.db"), &bolt.Options{Timeout: time.Second}, boltfile.Policy{Name: "test"}, zones.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m.z, err = zones.New(s, key, zones.Options{Now: m.clock, Live: zones.Ping(m.h, 2*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	m.reg = NewRegistry(m.h, m.clock)
	m.reg.SetZones(m.z)
	m.h.SetStreamHandler(entry.Protocol, m.reg.Handle)
	return m
}

// op sends req from h to the manager.
func (m *zoneManager) op(ctx context.Context, t *testing.T, h *host.Host, req entry.Request) entry.Answer {
	t.Helper()
	if err := h.Connect(ctx, m.h.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	a, err := entry.Ask(ctx, h, m.h.ID(), req)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// certs decodes and verifies a's certificates, which must name asker
// first for held zones; it returns them.
func (m *zoneManager) certs(t *testing.T, a entry.Answer) []zonecert.Cert {
	t.Helper()
	var out []zonecert.Cert
	for i, raw := range a.Certs {
		c, err := zonecert.Decode(raw)
		if err != nil {
			t.Fatalf("certificate %d: %v", i, err)
		}
		if err := c.Verify(m.key.GetPublic()); err != nil {
			t.Fatalf("certificate %d: %v", i, err)
		}
		out = append(out, c)
	}
	return out
}

// TestZoneOps walks the operations through real libp2p hosts: a join
// certifies the joiner's zone and its neighbours' with their addresses; a
// renewal records the member with its zones from the map; and every operation acts for the stream's remote peer only, so
// a peer cannot leave, move or renew in another's name, nor evict a live
// neighbour by reporting it, while a dead one is removed.
func TestZoneOps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newZoneManager(t)
	a, b, c, x := newHost(t), newHost(t), newHost(t), newHost(t)

	got := m.op(ctx, t, a, entry.Request{Op: entry.OpJoin, Point: []float64{0.2, 0.2, 0.2}})
	if cs := m.certs(t, got); len(cs) != 1 || cs[0].Holder != a.ID() || cs[0].Path != "" || got.Refused != "" {
		t.Fatalf("first join answered %+v", got)
	}
	got = m.op(ctx, t, b, entry.Request{Op: entry.OpJoin, Point: []float64{0.8, 0.2, 0.2}})
	cs := m.certs(t, got)
	if len(cs) != 2 || cs[0].Holder != b.ID() || cs[1].Holder != a.ID() {
		t.Fatalf("second join certified %+v", cs)
	}
	if len(got.Peers) != 1 || got.Peers[0].ID != a.ID().String() || len(got.Peers[0].Addrs) == 0 {
		t.Fatalf("second join's peers %+v, want a with its addresses", got.Peers)
	}
	m.op(ctx, t, c, entry.Request{Op: entry.OpJoin, Point: []float64{0.8, 0.8, 0.2}})

	// A renewal's zones come from the map; the request states only the
	// member's coordinate and capacity (TestZoneClaimsRefused: one
	// naming zones is dropped).
	got = m.op(ctx, t, b, entry.Request{Op: entry.OpRenew, Coord: []float64{3, 4}, Capacity: 2})
	if got.Refused != "" || len(m.certs(t, got)) < 2 {
		t.Fatalf("renewal answered %+v", got)
	}
	var mb Member
	for _, x := range m.reg.MemberInfos() {
		if x.ID == b.ID() {
			mb = x
		}
	}
	if len(mb.Zones) != 1 || mb.Zones[0].Lo[0] != 0.5 || mb.Capacity != 2 || len(mb.Coord) != 2 {
		t.Errorf("member recorded as %+v, want its zone from the map and its coordinate", mb)
	}

	// x holds nothing: it can act on nobody's zones.
	before := map[peer.ID]int{a.ID(): len(m.z.Zones(a.ID())), b.ID(): len(m.z.Zones(b.ID())), c.ID(): len(m.z.Zones(c.ID()))}
	for _, tc := range []struct {
		name string
		req  entry.Request
		want string
	}{
		{"renew", entry.Request{Op: entry.OpRenew}, entry.RefusedJoinAgain},
		{"move", entry.Request{Op: entry.OpMove, Point: []float64{0.2, 0.2, 0.2}}, entry.RefusedJoinAgain},
		{"leave", entry.Request{Op: entry.OpLeave}, ""},
		{"report a live member", entry.Request{Op: entry.OpReport, Suspect: a.ID().String()}, entry.RefusedJoinAgain},
		{"join at a point of another dimension", entry.Request{Op: entry.OpJoin, Point: []float64{0.5, 0.5}}, entry.RefusedBadPoint},
	} {
		got := m.op(ctx, t, x, tc.req)
		if got.Refused != tc.want || len(got.Certs) != 0 {
			t.Errorf("%s by an outsider: refused %q with %d certificates, want %q and none", tc.name, got.Refused, len(got.Certs), tc.want)
		}
	}
	for id, n := range before {
		if got := len(m.z.Zones(id)); got != n {
			t.Errorf("%s holds %d zones after the outsider's requests, held %d", id, got, n)
		}
	}

	// A member reporting a live neighbour evicts nobody.
	got = m.op(ctx, t, b, entry.Request{Op: entry.OpReport, Suspect: a.ID().String()})
	if got.Refused != entry.RefusedSuspectAnswers || len(m.z.Zones(a.ID())) == 0 {
		t.Fatalf("report of a live neighbour answered %+v; a holds %v", got, m.z.Zones(a.ID()))
	}
	// Once a is gone, the next check (CheckEvery later) removes it.
	aZone := m.z.Zones(a.ID())[0]
	a.Close()
	got = m.op(ctx, t, c, entry.Request{Op: entry.OpReport, Suspect: a.ID().String()})
	if got.Refused != entry.RefusedCheckedRecently {
		t.Fatalf("second report within CheckEvery answered %+v", got)
	}
	m.advance(zones.DefaultCheckEvery)
	got = m.op(ctx, t, c, entry.Request{Op: entry.OpReport, Suspect: a.ID().String()})
	if got.Refused != "" || len(m.z.Zones(a.ID())) != 0 {
		t.Fatalf("report of a dead neighbour answered %+v; a holds %v", got, m.z.Zones(a.ID()))
	}
	heir, _ := m.z.Owner(aZone.Centre())
	if !slices.ContainsFunc(m.certs(t, got), func(c zonecert.Cert) bool { return c.Holder == heir && c.Path.Zone(3).Contains(aZone.Centre()) }) {
		t.Errorf("the report's answer does not certify a's heir %s", heir)
	}
	if slices.Contains(m.reg.Members(), a.ID()) {
		t.Error("the evicted peer is still offered as a member")
	}
}

// TestZoneOpsRefuseCertificates: a request cannot carry certificates
// (forged or replayed): the manager only issues them, and a request with
// any field it does not know is dropped unread.
func TestZoneOpsRefuseCertificates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := newZoneManager(t)
	a, b := newHost(t), newHost(t)
	m.op(ctx, t, a, entry.Request{Op: entry.OpJoin, Point: []float64{0.2, 0.2, 0.2}})
	got := m.op(ctx, t, a, entry.Request{Op: entry.OpRenew})
	if err := b.Connect(ctx, m.h.AddrInfo()); err != nil {
		t.Fatal(err)
	}
	// b replays a's certificate, claiming a's zone in a renewal.
	type claim struct {
		Op    string   `json:"op"`
		Certs [][]byte `json:"certs"`
	}
	var ans entry.Answer
	err := frame.Call(ctx, b, m.h.ID(), entry.Protocol, claim{Op: entry.OpRenew, Certs: got.Certs}, &ans, entry.MaxMessageSize, entry.Timeout)
	if err == nil {
		t.Fatalf("a renewal carrying certificates was answered: %+v", ans)
	}
	if len(m.z.Zones(b.ID())) != 0 || m.z.Len() != 1 {
		t.Errorf("after the replay b holds %v, %d holders", m.z.Zones(b.ID()), m.z.Len())
	}
}

// TestZoneOpsOutdated: an outdated peer gets no certificate and loses its
// zones to its heirs.
func TestZoneOpsOutdated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := newZoneManager(t)
	m.reg.SetAdmit(func(v string) string {
		if v == "0.1.0" {
			return "update Hivecrawl"
		}
		return ""
	})
	a, b := newHost(t), newHost(t)
	m.op(ctx, t, a, entry.Request{Op: entry.OpJoin, Point: []float64{0.2, 0.2, 0.2}, Version: "1.0.0"})
	m.op(ctx, t, b, entry.Request{Op: entry.OpJoin, Point: []float64{0.8, 0.2, 0.2}, Version: "1.0.0"})
	got := m.op(ctx, t, b, entry.Request{Op: entry.OpRenew, Version: "0.1.0"})
	if got.Outdated == "" || len(got.Certs) != 0 || got.Refused != "" {
		t.Fatalf("outdated renewal answered %+v", got)
	}
	if len(m.z.Zones(b.ID())) != 0 || len(m.z.Zones(a.ID())) != 1 || m.z.Zones(a.ID())[0].Volume() != 1 {
		t.Errorf("after b's outdated renewal: b holds %v, a %v", m.z.Zones(b.ID()), m.z.Zones(a.ID()))
	}
	got = m.op(ctx, t, b, entry.Request{Op: entry.OpJoin, Point: []float64{0.8, 0.2, 0.2}, Version: "0.1.0"})
	if got.Outdated == "" || len(got.Certs) != 0 || m.z.Len() != 1 {
		t.Errorf("outdated join answered %+v, %d holders", got, m.z.Len())
	}
}
