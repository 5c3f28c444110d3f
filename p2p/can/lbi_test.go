package can

import (
	"math"
	"testing"
)

func TestNewLoadAndThreshold(t *testing.T) {
	tests := []struct {
		name     string
		pieces   int
		pages    int64
		c        Capacity
		max      int
		rtl, rpl float64
		ot       float64
	}{
		{"paper setting 1 Mb/s 1 GB", 12, 12000, Capacity{BWDownload: 1, MemoryGB: 1}, 11, 12, 12000, 11},
		{"memory bound", 4, 1000, Capacity{BWDownload: 8, MemoryGB: 2}, 10, 2, 500, 5},
		{"bandwidth bound", 3, 300, Capacity{BWDownload: 0.5, MemoryGB: 4}, 5, 6, 600, 10},
		{"idle without capacity", 0, 0, Capacity{}, 5, 0, 0, math.Inf(1)},
		{"busy without capacity", 1, 10, Capacity{}, 5, math.Inf(1), math.Inf(1), math.Inf(1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoad(tc.pieces, tc.pages, tc.c)
			if l.RTL != tc.rtl || l.RPL != tc.rpl {
				t.Errorf("NewLoad = %+v, want RTL %v RPL %v", l, tc.rtl, tc.rpl)
			}
			if ot := Threshold(tc.max, tc.c); ot != tc.ot {
				t.Errorf("Threshold = %v, want %v", ot, tc.ot)
			}
		})
	}
}

func TestDecideInsert(t *testing.T) {
	nb := func(id string, rpl float64) NeighbourInfo {
		return NeighbourInfo{ID: PeerID(id), Load: Load{RPL: rpl}}
	}
	busy := Load{RTL: 12, RPL: 5000}
	tests := []struct {
		name string
		self Load
		ot   float64
		nbrs []NeighbourInfo
		ttl  int
		want Decision
	}{
		{"not overloaded accepts", Load{RTL: 11, RPL: 5000}, 11, []NeighbourInfo{nb("a", 1)}, 3, Decision{Accept: true}},
		{"overloaded forwards to lowest RPL", busy, 11, []NeighbourInfo{nb("a", 300), nb("b", 100), nb("c", 200)}, 3, Decision{To: "b", TTL: 2}},
		{"tie goes to smaller ID", busy, 11, []NeighbourInfo{nb("z", 100), nb("b", 100)}, 2, Decision{To: "b", TTL: 1}},
		{"last hop may still forward", busy, 11, []NeighbourInfo{nb("a", 1)}, 1, Decision{To: "a", TTL: 0}},
		{"TTL 0 must accept", busy, 11, []NeighbourInfo{nb("a", 1)}, 0, Decision{Accept: true}},
		{"no neighbours accepts", busy, 11, nil, 3, Decision{Accept: true}},
		{"neighbours busier accepts", busy, 11, []NeighbourInfo{nb("a", 5000), nb("b", 9000)}, 3, Decision{Accept: true}},
		{"infinite load forwards", Load{RTL: math.Inf(1), RPL: math.Inf(1)}, 5, []NeighbourInfo{nb("a", 7)}, 3, Decision{To: "a", TTL: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideInsert(tc.self, tc.ot, tc.nbrs, tc.ttl); got != tc.want {
				t.Errorf("DecideInsert = %+v, want %+v", got, tc.want)
			}
		})
	}
}
