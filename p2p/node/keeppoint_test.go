package node

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// TestPlacedOwnerKeepsItsPoint: a peer placed at its coordinate that
// hands part of its zone to a joiner whose point lies in the same half
// as its own keeps the piece with its own point; the joiner's piece holds
// the joiner's point, and the pieces still tile the space. An owner not
// yet placed splits once, as before.
func TestPlacedOwnerKeepsItsPoint(t *testing.T) {
	for _, placed := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c := newCluster(t, Config{Heartbeat: time.Hour}) // no rounds of its own
		own := can.Point{0.1, 0.2, 0.3}
		owner := c.addAt(ctx, own)
		owner.n.mu.Lock()
		owner.n.placed = placed
		owner.n.mu.Unlock()
		h, err := host.New(ctx, host.Config{ListenAddrs: []string{"/ip4/127.0.0.1/tcp/0"}, NoDHT: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		cfg := c.cfg
		cfg.Point = can.Point{0.2, 0.1, 0.35} // the same half as own in every dimension
		joiner, err := New(h, &memQueue{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		joiner.mu.Lock()
		req := &wire.JoinRequest{Point: cfg.Point, Joiner: joiner.selfLocked()}
		joiner.mu.Unlock()
		resp := owner.n.join(req, h.ID())
		cancel()
		if resp.Error != "" || len(resp.Zones) != 1 {
			t.Fatalf("placed %v: answer %+v, want one zone", placed, resp)
		}
		given, _ := fromWireZones(resp.Zones, can.DefaultDim)
		kept := owner.n.Zones()
		if !given[0].Contains(cfg.Point) {
			t.Fatalf("placed %v: joiner's zone %v lacks its point", placed, given[0])
		}
		if v := volume(kept) + volume(given); v != 1 {
			t.Fatalf("placed %v: zones %v and %v cover %v of the space", placed, kept, given, v)
		}
		holds := false
		for _, z := range kept {
			holds = holds || z.Contains(own)
		}
		if placed && !holds {
			t.Fatalf("placed owner kept %v, none holds its point %v", kept, own)
		}
		if !placed && (holds || len(kept) != 1) {
			t.Fatalf("unplaced owner kept %v: want one half, without its hashed point", kept)
		}
	}
}
