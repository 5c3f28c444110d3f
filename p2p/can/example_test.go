package can_test

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// The manager's map, as the simulator drives it too: peers join at their
// points, messages are routed greedily, and a departed peer's zone goes to
// its heir; each change names the leaves to certify.
func ExampleMap() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := can.NewMap(2, 30*time.Second)
	for _, j := range []struct {
		id can.PeerID
		p  can.Point
	}{
		{"a", can.Point{0.1, 0.1}},
		{"b", can.Point{0.9, 0.1}},
		{"c", can.Point{0.9, 0.9}},
		{"d", can.Point{0.1, 0.9}},
	} {
		if _, err := m.Join(j.id, j.p, now); err != nil {
			panic(err)
		}
	}
	path, _ := m.Route("a", can.Point{0.8, 0.8})
	fmt.Println("route:", path)
	changed, _ := m.Leave("c", now)
	for _, l := range changed {
		fmt.Printf("certify %q to %s, epoch %d\n", l.Path, l.Holder, l.Epoch)
	}
	owner, _ := m.Owner(can.Point{0.8, 0.8})
	fmt.Println("owner now:", owner)
	// Output:
	// route: [a b c]
	// certify "1" to b, epoch 5
	// owner now: b
}

// A networked peer's local decisions: route one hop, then decide where an
// insert goes under load balancing on insert.
func ExampleNextHop() {
	self := []can.Zone{{Lo: can.Point{0, 0}, Hi: can.Point{0.5, 1}}}
	nbrs := []can.NeighbourInfo{
		{ID: "east", Zones: []can.Zone{{Lo: can.Point{0.5, 0}, Hi: can.Point{1, 1}}}, Load: can.Load{RTL: 2, RPL: 300}},
	}
	next, local, _ := can.NextHop(self, nbrs, can.Point{0.7, 0.2})
	fmt.Println("next:", next, "local:", local)

	capacity := can.Capacity{BWDownload: 1, MemoryGB: 1}
	me := can.NewLoad(12, 9000, capacity)
	d := can.DecideInsert(me, can.Threshold(11, capacity), nbrs, can.DefaultTTL)
	fmt.Printf("accept: %v, forward to %q with TTL %d\n", d.Accept, d.To, d.TTL)
	// Output:
	// next: east local: false
	// accept: false, forward to "east" with TTL 2
}
