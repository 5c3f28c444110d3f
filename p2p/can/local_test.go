package can

import "testing"

func TestMerge(t *testing.T) {
	u := Unit(2)
	l, r := u.Split()
	rl, rh := r.Split()
	rll, rlh := rl.Split()
	tests := []struct {
		name  string
		zones []Zone
		want  []Zone
	}{
		{"siblings merge", []Zone{rl, rh}, []Zone{r}},
		{"merges cascade", []Zone{rll, l, rh, rlh}, []Zone{u}},
		{"non-siblings stay", []Zone{l, rl}, []Zone{l, rl}},
		{"single", []Zone{rh}, []Zone{rh}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Merge(tc.zones)
			if len(got) != len(tc.want) {
				t.Fatalf("Merge = %v, want %v", got, tc.want)
			}
			for i := range got {
				if !got[i].Equal(tc.want[i]) {
					t.Fatalf("Merge = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestHeirAndAbutting(t *testing.T) {
	u := Unit(2)
	l, r := u.Split()   // l: x<.5, r: x≥.5
	rl, rh := r.Split() // rl: y<.5, rh: y≥.5
	ll, lh := l.Split()
	nb := func(id string, zs ...Zone) NeighbourInfo { return NeighbourInfo{ID: PeerID(id), Zones: zs} }
	cands := []NeighbourInfo{nb("big", lh), nb("sib", rh), nb("far", ll)}
	tests := []struct {
		name     string
		z        Zone
		graceful bool
		want     PeerID
	}{
		{"graceful goes to sibling", rl, true, "sib"},
		// Crash: abutting candidates are sib (rh, 1/4), far (ll, 1/4); big
		// (lh) touches rl only at a corner. Tie on volume → smaller ID.
		{"crash goes to smallest abutting", rl, false, "far"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Heir(tc.z, cands, tc.graceful)
			if !ok || got != tc.want {
				t.Errorf("Heir = %q, %v, want %q", got, ok, tc.want)
			}
		})
	}
	if _, ok := Heir(rl, []NeighbourInfo{nb("big", lh)}, false); ok {
		t.Error("Heir found a candidate that only touches a corner")
	}
	ab := Abutting([]Zone{rl}, cands)
	if len(ab) != 2 || ab[0].ID != "sib" || ab[1].ID != "far" {
		t.Errorf("Abutting = %v, want sib and far", ab)
	}
}
