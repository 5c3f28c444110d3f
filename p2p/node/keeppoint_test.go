package node

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
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
		point := can.Point{0.2, 0.1, 0.35} // the same half as own in every dimension
		joiner, req := c.outsider(ctx, point)
		resp := owner.n.join(req, joiner.h.ID())
		cancel()
		if resp.Error != "" || len(resp.Zones) != 1 {
			t.Fatalf("placed %v: answer %+v, want one zone", placed, resp)
		}
		given, _ := fromWireZones(resp.Zones, can.DefaultDim)
		kept := owner.n.Zones()
		if !given[0].Contains(point) {
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
