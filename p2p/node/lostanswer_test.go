package node

import (
	"context"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// TestJoinAnswerLost: the owner has answered a join, but the joiner has
// not read the answer. A heartbeat from the joiner meanwhile carries no
// zone; the owner must not take the zone back. The joiner asking again
// gets the same zone, not a second split.
func TestJoinAnswerLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: time.Hour}) // no rounds of its own
	owner := c.addAt(ctx, can.Point{0.25, 0.5, 0.5})
	joiner, req := c.outsider(ctx, can.Point{0.75, 0.5, 0.5})
	h := joiner.h
	joiner.mu.Lock()
	zoneless := joiner.heartbeatLocked()
	joiner.mu.Unlock()

	first := owner.n.join(req, h.ID())
	if first.Error != "" || len(first.Zones) != 1 {
		t.Fatalf("first answer %+v, want one zone", first)
	}
	given, _ := fromWireZones(first.Zones, can.DefaultDim)

	// The joiner's zone-less heartbeat crosses the answer.
	owner.n.onHeartbeat(zoneless, h.ID())
	owner.n.checkDead(time.Now().Add(time.Minute))
	if got := owner.n.Zones(); overlapsAny(got, given) {
		t.Fatalf("owner took back the zone it handed: holds %v, gave %v", got, given)
	}

	// The answer was lost; the joiner asks again.
	again := owner.n.join(req, h.ID())
	if again.Error != "" {
		t.Fatalf("second answer refused: %s", again.Error)
	}
	zones, _ := fromWireZones(again.Zones, can.DefaultDim)
	if len(zones) != 1 || !zones[0].Equal(given[0]) {
		t.Fatalf("second answer handed %v, want the same zone %v", zones, given)
	}
	if got := owner.n.Zones(); len(got) != 1 || volume(got)+volume(zones) != 1 {
		t.Fatalf("owner holds %v after answering twice; with %v they should tile the space", got, zones)
	}
}
