package node

import (
	"testing"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

func TestSubtractAndMerge(t *testing.T) {
	u := can.Unit(2)
	lo, hi := u.Split()
	lolo, lohi := lo.Split()
	tests := []struct {
		name       string
		zs, others []can.Zone
		wantVol    float64
		wantN      int
	}{
		{"disjoint", []can.Zone{lo}, []can.Zone{hi}, 0.5, 1},
		{"equal dropped", []can.Zone{lo}, []can.Zone{lo}, 0, 0},
		{"inside other dropped", []can.Zone{lolo}, []can.Zone{lo}, 0, 0},
		{"carve quarter", []can.Zone{u}, []can.Zone{lohi}, 0.75, 2},
		{"carve two", []can.Zone{u}, []can.Zone{lolo, hi}, 0.25, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := subtract(tt.zs, tt.others)
			if len(got) != tt.wantN || volume(got) != tt.wantVol {
				t.Fatalf("subtract = %v (volume %v), want %d zones of volume %v", got, volume(got), tt.wantN, tt.wantVol)
			}
			for _, z := range got {
				if overlapsAny([]can.Zone{z}, tt.others) {
					t.Fatalf("%v still overlaps %v", z, tt.others)
				}
			}
			if m := merge(append(got, tt.others...)); tt.name == "carve quarter" && (len(m) != 1 || !m[0].Equal(u)) {
				t.Fatalf("merge back = %v, want the unit box", m)
			}
		})
	}
}

// TestMergeDropsRepeats: a zone listed twice, or inside another listed
// zone, is held once.
func TestMergeDropsRepeats(t *testing.T) {
	u := can.Unit(2)
	lo, hi := u.Split()
	lolo, _ := lo.Split()
	for _, tt := range []struct {
		name string
		zs   []can.Zone
		want []can.Zone
	}{
		{"twice", []can.Zone{lo, lo}, []can.Zone{lo}},
		{"inside", []can.Zone{lolo, lo}, []can.Zone{lo}},
		{"twice with sibling", []can.Zone{lo, hi, lo}, []can.Zone{u}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := merge(tt.zs)
			if len(got) != len(tt.want) || volume(got) != volume(tt.want) {
				t.Fatalf("merge(%v) = %v, want %v", tt.zs, got, tt.want)
			}
		})
	}
}
