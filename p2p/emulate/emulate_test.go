package emulate

import (
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/latency"
	"github.com/libp2p/go-libp2p/core/peer"
)

// A 3-node matrix: 0↔1 known both ways, 0→2 only one way, 1↔2 unknown.
const tsv = "0\t10\t30\n12\t0\t0\n0\t0\t0\n"

func TestEmulator(t *testing.T) {
	m, err := latency.Parse(strings.NewReader(tsv), 1)
	if err != nil {
		t.Fatal(err)
	}
	e := New(m)
	a, b, c := peer.ID("a"), peer.ID("b"), peer.ID("c")
	for id, n := range map[peer.ID]int{a: 0, b: 1, c: 2} {
		if err := e.AssignPeer(id, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.AssignHost("far.example", 2); err != nil {
		t.Fatal(err)
	}
	if err := e.AssignPeer("x", 3); err == nil {
		t.Fatal("assigned a node outside the matrix")
	}
	ms := time.Millisecond
	tests := []struct {
		name   string
		got    func() (time.Duration, bool)
		want   time.Duration
		wantOK bool
	}{
		{"symmetric mean", func() (time.Duration, bool) { return e.PeerRTT(a, b) }, 11 * ms, true},
		{"one direction known", func() (time.Duration, bool) { return e.PeerRTT(c, a) }, 30 * ms, true},
		{"unknown uses row median", func() (time.Duration, bool) { return e.PeerRTT(b, c) }, 11 * ms, true},
		{"self", func() (time.Duration, bool) { return e.PeerRTT(a, a) }, 0, true},
		{"host", func() (time.Duration, bool) { return e.HostRTT(a, "far.example") }, 30 * ms, true},
		{"unassigned peer", func() (time.Duration, bool) { return e.PeerRTT(a, "nobody") }, 0, false},
		{"unassigned host", func() (time.Duration, bool) { return e.HostRTT(a, "near.example") }, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.got()
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("got %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
	v := e.For(a)
	if v.Host("far.example") != 30*ms || v.Peer(b) != 11*ms || v.Host("unknown") != 0 {
		t.Fatalf("view: host %v peer %v", v.Host("far.example"), v.Peer(b))
	}
}

func TestPlanetLabTriangle(t *testing.T) {
	e := New(latency.PlanetLab())
	if e.Len() != 490 {
		t.Fatalf("PlanetLab has %d nodes, want 490", e.Len())
	}
	e.AssignPeer("p", 0)
	e.AssignHost("h", 3)
	if d, ok := e.HostRTT("p", "h"); !ok || d <= 0 {
		t.Fatalf("HostRTT = %v, %v; want a positive RTT", d, ok)
	}
}
