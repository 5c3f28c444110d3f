package hashring

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

func hosts(n int) []string {
	hs := make([]string, n)
	for i := range hs {
		hs[i] = fmt.Sprintf("host%05d.example.org", i)
	}
	return hs
}

func assign(t *testing.T, r *Ring, hs []string) map[string]can.PeerID {
	t.Helper()
	out := make(map[string]can.PeerID, len(hs))
	for _, h := range hs {
		id, ok := r.Owner(h)
		if !ok {
			t.Fatal("no owner on a non-empty ring")
		}
		out[h] = id
	}
	return out
}

func TestRemoveMovesOnlyTheRemovedPeersHosts(t *testing.T) {
	r := New(0)
	for i := range 20 {
		if err := r.Add(can.PeerID(fmt.Sprintf("peer-%02d", i)), 1+float64(i%3)); err != nil {
			t.Fatal(err)
		}
	}
	hs := hosts(5000)
	before := assign(t, r, hs)
	r.Remove("peer-07")
	after := assign(t, r, hs)
	moved := 0
	for _, h := range hs {
		switch {
		case before[h] == "peer-07":
			moved++
			if after[h] == "peer-07" {
				t.Fatalf("%s still on the removed peer", h)
			}
		case after[h] != before[h]:
			t.Fatalf("%s moved from %s to %s though %s stayed", h, before[h], after[h], before[h])
		}
	}
	if moved == 0 {
		t.Fatal("the removed peer held no hosts; the test proves nothing")
	}
	// Adding it back restores the assignment exactly (identifier-seeded).
	if err := r.Add("peer-07", 1+float64(7%3)); err != nil {
		t.Fatal(err)
	}
	again := assign(t, r, hs)
	for _, h := range hs {
		if again[h] != before[h] {
			t.Fatalf("%s on %s after re-adding, was %s", h, again[h], before[h])
		}
	}
}

func TestAddMovesHostsOnlyToTheNewPeer(t *testing.T) {
	r := New(0)
	for i := range 10 {
		_ = r.Add(can.PeerID(fmt.Sprintf("peer-%02d", i)), 1)
	}
	hs := hosts(5000)
	before := assign(t, r, hs)
	_ = r.Add("newcomer", 2)
	after := assign(t, r, hs)
	gained := 0
	for _, h := range hs {
		if after[h] != before[h] {
			if after[h] != "newcomer" {
				t.Fatalf("%s moved from %s to %s", h, before[h], after[h])
			}
			gained++
		}
	}
	// The newcomer has 2 of 12 capacity units: expect about 1/6 of hosts.
	if share := float64(gained) / float64(len(hs)); share < 0.12 || share > 0.22 {
		t.Errorf("newcomer gained %.3f of hosts, want about 0.167", share)
	}
}

func TestSharesTrackCapacity(t *testing.T) {
	caps := map[can.PeerID]float64{"a": 0.5, "b": 1, "c": 1, "d": 2, "e": 4}
	r := New(0)
	total := 0.0
	for id, c := range caps {
		if err := r.Add(id, c); err != nil {
			t.Fatal(err)
		}
		total += c
	}
	hs := hosts(40000)
	count := map[can.PeerID]int{}
	for _, id := range assign(t, r, hs) {
		count[id]++
	}
	for id, c := range caps {
		want := c / total
		got := float64(count[id]) / float64(len(hs))
		t.Logf("%s: capacity share %.3f, host share %.3f", id, want, got)
		if math.Abs(got-want) > 0.25*want {
			t.Errorf("%s holds %.3f of hosts, capacity share %.3f", id, got, want)
		}
	}
}

func TestOrderIndependent(t *testing.T) {
	a, b := New(50), New(50)
	ids := []can.PeerID{"x", "y", "z", "w"}
	for _, id := range ids {
		_ = a.Add(id, 1)
	}
	for i := len(ids) - 1; i >= 0; i-- {
		_ = b.Add(ids[i], 1)
	}
	for _, h := range hosts(2000) {
		oa, _ := a.Owner(h)
		ob, _ := b.Owner(h)
		if oa != ob {
			t.Fatalf("%s: %s vs %s depending on join order", h, oa, ob)
		}
	}
}

func TestEdgeCases(t *testing.T) {
	r := New(0)
	if _, ok := r.Owner("example.org"); ok {
		t.Error("empty ring has an owner")
	}
	tests := []struct {
		name string
		cap  float64
		want error
	}{
		{"zero", 0, ErrBadCapacity},
		{"negative", -1, ErrBadCapacity},
		{"NaN", math.NaN(), ErrBadCapacity},
		{"infinite", math.Inf(1), ErrBadCapacity},
		{"tiny still gets a point", 1e-9, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := r.Add("p", tc.cap); !errors.Is(err, tc.want) {
				t.Errorf("Add error %v, want %v", err, tc.want)
			}
		})
	}
	if id, ok := r.Owner("example.org"); !ok || id != "p" {
		t.Errorf("sole peer not the owner: %q, %v", id, ok)
	}
	_ = r.Add("p", 3) // replace, not duplicate
	if r.Len() != 1 || len(r.points) != 3*DefaultReplicasPerUnit {
		t.Errorf("re-adding gave %d peers, %d points", r.Len(), len(r.points))
	}
	r.Remove("p")
	r.Remove("p")
	if r.Len() != 0 || len(r.points) != 0 {
		t.Errorf("after removal %d peers, %d points", r.Len(), len(r.points))
	}
}

// TestAddKeepsPointsSorted: points merged in by Add, including a peer
// added again with another capacity, keep the ring sorted and counted.
func TestAddKeepsPointsSorted(t *testing.T) {
	r := New(7)
	want := 0
	for i := range 300 {
		c := float64(1 + i%3)
		if err := r.Add(can.PeerID(fmt.Sprintf("p%d", i%200)), c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range r.capacity {
		want += max(1, int(math.Round(c*7)))
	}
	if !slices.IsSortedFunc(r.points, comparePoints) || len(r.points) != want {
		t.Fatalf("%d points (want %d), sorted %v", len(r.points), want, slices.IsSortedFunc(r.points, comparePoints))
	}
}
