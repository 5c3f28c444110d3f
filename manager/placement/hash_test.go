package placement

import (
	"fmt"
	"slices"
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/members"
	"github.com/hivecrawl/hivecrawl/proto/entry"
)

// TestHashOwner: the ring does not depend on the order members are
// listed in, leaves out members without a zone, places a host at the
// centre of its owner's first zone, and gives a member of twice the
// capacity about twice the hosts.
func TestHashOwner(t *testing.T) {
	box := func(lo, hi float64) []entry.Box { return []entry.Box{{Lo: []float64{lo, 0}, Hi: []float64{hi, 1}}} }
	ms := []members.Member{
		{ID: peer.ID("a"), Zones: box(0, 0.5), Capacity: 1},
		{ID: peer.ID("b"), Zones: box(0.5, 1), Capacity: 2},
		{ID: peer.ID("z")}, // no zone yet
	}
	if _, _, ok := HashOwner(ms[2:], "h.example:80"); ok {
		t.Fatal("a host placed on a ring of members without zones")
	}
	reversed := slices.Clone(ms)
	slices.Reverse(reversed)
	count := map[peer.ID]int{}
	const hosts = 3000
	for i := range hosts {
		h := fmt.Sprintf("h%d.example:80", i)
		id, at, ok := HashOwner(ms, h)
		id2, _, _ := HashOwner(reversed, h)
		if !ok || id != id2 {
			t.Fatalf("%s: owner %q (ok %v), %q with the members reversed", h, id, ok, id2)
		}
		if id == "z" {
			t.Fatalf("%s went to the member without a zone", h)
		}
		if want := map[peer.ID]float64{"a": 0.25, "b": 0.75}[id]; at[0] != want || at[1] != 0.5 {
			t.Fatalf("%s placed at %v, want the centre of %s's zone", h, at, id)
		}
		count[id]++
	}
	if r := float64(count["b"]) / float64(count["a"]); r < 1.6 || r > 2.5 {
		t.Errorf("hosts a %d, b %d: ratio %.2f, want about 2 for twice the capacity", count["a"], count["b"], r)
	}
}
