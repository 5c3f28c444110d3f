package node

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/wire"
)

// TestHearsayBounded: a peer's list of neighbours is hearsay and may be
// made up. However many peers it names next to our zones, this node keeps
// at most maxHearsay of them, which it would otherwise heartbeat every
// round and then remember as gone.
func TestHearsayBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newCluster(t, Config{Heartbeat: time.Hour}) // no rounds: the tables change only here
	a := c.addAt(ctx, can.Point{0.25, 0.5, 0.5})
	c.addAt(ctx, can.Point{0.75, 0.5, 0.5})
	a.n.mu.Lock()
	defer a.n.mu.Unlock()
	const w = 1.0 / 8
	var face can.Zone // a small cube just across a face of one of a's zones
	for _, z := range a.n.zones {
		if z.Hi[0] < 1 {
			face = can.Zone{Lo: can.Point{z.Hi[0], z.Lo[1], z.Lo[2]}, Hi: can.Point{z.Hi[0] + w, z.Lo[1] + w, z.Lo[2] + w}}
			break
		}
	}
	if face.Lo == nil {
		t.Fatalf("a's zones %v have no inner face along x", a.n.zones)
	}
	for range 500 {
		_, pub, err := crypto.GenerateEd25519Key(nil)
		if err != nil {
			t.Fatal(err)
		}
		id, err := peer.IDFromPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		a.n.learnLocked(&wire.Peer{Id: []byte(id), Zones: toWireZones([]can.Zone{face})}, false)
	}
	if got := a.n.hearsayLocked(); got == 0 || got > maxHearsay {
		t.Fatalf("%d neighbours known only second-hand after 500 made-up ones; want some, at most %d", got, maxHearsay)
	}
}
