package can

import (
	"math"
	"testing"
)

// zone starts a zone at lo; with sets its upper corner.
func zone(lo ...float64) Zone { return Zone{Lo: Point(lo)} }

func TestZoneContains(t *testing.T) {
	z := zone2(0, 0.5, 0.5, 1)
	tests := []struct {
		name string
		z    Zone
		p    Point
		want bool
	}{
		{"inside", z, Point{0.25, 0.75}, true},
		{"low face is closed", z, Point{0, 0.5}, true},
		{"inner high face is open", z, Point{0.5, 0.75}, false},
		{"outer high face 1 is closed", z, Point{0.25, 1}, true},
		{"outside", z, Point{0.75, 0.25}, false},
		{"wrong dimension", z, Point{0.25}, false},
		{"unit box corner", Unit(3), Point{1, 1, 1}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.z.Contains(tc.p); got != tc.want {
				t.Errorf("%v.Contains(%v) = %v, want %v", tc.z, tc.p, got, tc.want)
			}
		})
	}
}

// zone2 builds a 2-d zone from x and y extents.
func zone2(x0, x1, y0, y1 float64) Zone { return zone(x0, y0).with(x1, y1) }

func (z Zone) with(hi ...float64) Zone { z.Hi = Point(hi); return z }

func TestZoneSplitOrderAndTree(t *testing.T) {
	tests := []struct {
		name      string
		z         Zone
		depth     int
		splitDim  int
		wantLo    Zone
		wantHi    Zone
		hasParent bool
	}{
		{"unit 2d splits x", Unit(2), 0, 0, zone2(0, 0.5, 0, 1), zone2(0.5, 1, 0, 1), false},
		{"half splits y", zone2(0.5, 1, 0, 1), 1, 1, zone2(0.5, 1, 0, 0.5), zone2(0.5, 1, 0.5, 1), true},
		{"quarter splits x again", zone2(0.5, 1, 0.5, 1), 2, 0, zone2(0.5, 0.75, 0.5, 1), zone2(0.75, 1, 0.5, 1), true},
		{"3d depth 2 splits z", zone(0, 0, 0).with(0.5, 0.5, 1), 2, 2, zone(0, 0, 0).with(0.5, 0.5, 0.5), zone(0, 0, 0.5).with(0.5, 0.5, 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.z.Depth(); got != tc.depth {
				t.Errorf("Depth = %d, want %d", got, tc.depth)
			}
			if got := tc.z.SplitDim(); got != tc.splitDim {
				t.Errorf("SplitDim = %d, want %d", got, tc.splitDim)
			}
			lo, hi := tc.z.Split()
			if !lo.Equal(tc.wantLo) || !hi.Equal(tc.wantHi) {
				t.Fatalf("Split = %v, %v, want %v, %v", lo, hi, tc.wantLo, tc.wantHi)
			}
			for _, c := range []Zone{lo, hi} {
				par, ok := c.Parent()
				if !ok || !par.Equal(tc.z) {
					t.Errorf("%v.Parent() = %v, %v, want %v", c, par, ok, tc.z)
				}
				if err := c.Validate(tc.z.Dim()); err != nil {
					t.Errorf("Validate(%v): %v", c, err)
				}
			}
			if s, ok := lo.Sibling(); !ok || !s.Equal(hi) {
				t.Errorf("%v.Sibling() = %v, want %v", lo, s, hi)
			}
			if s, ok := hi.Sibling(); !ok || !s.Equal(lo) {
				t.Errorf("%v.Sibling() = %v, want %v", hi, s, lo)
			}
			if _, ok := tc.z.Parent(); ok != tc.hasParent {
				t.Errorf("Parent ok = %v, want %v", ok, tc.hasParent)
			}
			if !Abuts(lo, hi) {
				t.Errorf("halves %v and %v do not abut", lo, hi)
			}
		})
	}
}

func TestAbuts(t *testing.T) {
	tests := []struct {
		name string
		a, b Zone
		want bool
	}{
		{"share a face", zone2(0, 0.5, 0, 1), zone2(0.5, 1, 0, 0.5), true},
		{"share part of a face", zone2(0, 0.5, 0, 0.5), zone2(0.5, 0.75, 0.25, 0.5), true},
		{"touch only at a corner", zone2(0, 0.5, 0, 0.5), zone2(0.5, 1, 0.5, 1), false},
		{"no torus wrap", zone2(0, 0.25, 0, 1), zone2(0.75, 1, 0, 1), false},
		{"apart", zone2(0, 0.25, 0, 0.25), zone2(0.5, 1, 0, 0.25), false},
		{"overlapping is not abutting", zone2(0, 0.5, 0, 1), zone2(0, 0.5, 0, 0.5), false},
		{"wrong dimension", Unit(2), Unit(3), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Abuts(tc.a, tc.b); got != tc.want {
				t.Errorf("Abuts(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := Abuts(tc.b, tc.a); got != tc.want {
				t.Errorf("Abuts is not symmetric for %v, %v", tc.b, tc.a)
			}
		})
	}
}

func TestZoneValidate(t *testing.T) {
	tests := []struct {
		name string
		z    Zone
		d    int
		ok   bool
	}{
		{"unit", Unit(3), 3, true},
		{"first half", zone(0.5, 0, 0).with(1, 1, 1), 3, true},
		{"wrong dimension", Unit(2), 3, false},
		{"width not a power of two", zone(0, 0, 0).with(0.3, 1, 1), 3, false},
		{"misaligned", zone(0.25, 0, 0).with(0.75, 1, 1), 3, false},
		{"split out of order", zone(0, 0, 0).with(1, 0.5, 1), 3, false},
		{"outside the box", zone(1, 0, 0).with(2, 1, 1), 3, false},
		{"empty", zone(0.5, 0, 0).with(0.5, 1, 1), 3, false},
		{"NaN", zone(math.NaN(), 0, 0).with(1, 1, 1), 3, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.z.Validate(tc.d)
			if (err == nil) != tc.ok {
				t.Errorf("Validate(%v) = %v, want ok %v", tc.z, err, tc.ok)
			}
		})
	}
}

func TestDistDriftClamp(t *testing.T) {
	z := zone2(0, 0.5, 0, 0.5)
	if d := z.Dist2(Point{1, 0.25}); d != 0.25 {
		t.Errorf("Dist2 to a point beside = %v, want 0.25", d)
	}
	if d := z.Dist2(Point{0.25, 0.25}); d != 0 {
		t.Errorf("Dist2 inside = %v, want 0", d)
	}
	if z.Drifted(Point{0.5, 0.5}) {
		t.Error("corner point counted as drifted")
	}
	if !z.Drifted(Point{1, 1}) {
		t.Error("far point not counted as drifted")
	}
	got := Clamp(Point{-1, 0.5, 2, math.NaN()})
	want := Point{0, 0.5, 1, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Clamp = %v, want %v", got, want)
		}
	}
}

// FuzzZoneValidate checks that any zone a peer accepts from the wire obeys
// the tree arithmetic the overlay relies on.
func FuzzZoneValidate(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)
	f.Add(0.5, 0.0, 0.0, 1.0, 1.0, 1.0)
	f.Add(0.25, 0.5, 0.0, 0.5, 1.0, 0.5)
	f.Add(0.0, 0.0, 0.0, 0.3, 1.0, 1.0)
	f.Fuzz(func(t *testing.T, l0, l1, l2, h0, h1, h2 float64) {
		z := zone(l0, l1, l2).with(h0, h1, h2)
		if z.Validate(3) != nil {
			return
		}
		if v := z.Volume(); !(v > 0 && v <= 1) {
			t.Fatalf("valid zone %v has volume %v", z, v)
		}
		if !z.Contains(z.Centre()) {
			t.Fatalf("valid zone %v does not contain its centre", z)
		}
		lo, hi := z.Split()
		if lo.Validate(3) == nil && hi.Validate(3) == nil {
			if p, ok := lo.Parent(); !ok || !p.Equal(z) {
				t.Fatalf("%v split to %v whose parent is %v", z, lo, p)
			}
			if s, ok := hi.Sibling(); !ok || !s.Equal(lo) {
				t.Fatalf("%v split to %v, %v but sibling is %v", z, lo, hi, s)
			}
		}
		if par, ok := z.Parent(); ok {
			if err := par.Validate(3); err != nil {
				t.Fatalf("parent %v of valid %v invalid: %v", par, z, err)
			}
			a, b := par.Split()
			if !a.Equal(z) && !b.Equal(z) {
				t.Fatalf("parent %v of %v splits to %v, %v", par, z, a, b)
			}
		}
	})
}

// TestSplitApart: two points in one zone end up in different pieces, the
// pieces tile the zone, and points too close to part within the depth
// are reported.
func TestSplitApart(t *testing.T) {
	z := Unit(3)
	keep, give := Point{0.1, 0.2, 0.3}, Point{0.2, 0.1, 0.35}
	given, kept, ok := z.SplitApart(keep, give, 8)
	if !ok || !given.Contains(give) || given.Contains(keep) {
		t.Fatalf("SplitApart: given %v, kept %v, ok %v", given, kept, ok)
	}
	vol, holds := given.Volume(), 0
	for _, k := range kept {
		vol += k.Volume()
		if k.Contains(keep) {
			holds++
		}
		if k.Contains(give) {
			t.Fatalf("kept piece %v holds the joiner's point", k)
		}
	}
	if holds != 1 || vol != z.Volume() {
		t.Fatalf("kept %v: %d hold the point to keep, volumes sum to %v", kept, holds, vol)
	}
	if _, _, ok := z.SplitApart(keep, Point{0.1000001, 0.2, 0.3}, 4); ok {
		t.Fatal("points a millionth apart parted in 4 halvings")
	}
}

// TestZoneSets: a holder's zones as one set: whether they hold a point,
// abut another holder's, and their volume together.
func TestZoneSets(t *testing.T) {
	lo, hi := Unit(2).Split() // x below and above 0.5
	hilo, hihi := hi.Split()  // hi split along y
	mine := []Zone{lo}
	if !Holds(mine, Point{0.25, 0.9}) || Holds(mine, Point{0.75, 0.25}) || Holds(nil, Point{0.1, 0.1}) {
		t.Error("Holds: wrong answer for a point inside, outside, or no zone")
	}
	if !AbutsAny(mine, []Zone{hihi}) || !AbutsAny([]Zone{hilo}, []Zone{hihi}) || AbutsAny(mine, nil) {
		t.Error("AbutsAny: wrong answer for abutting zones or none")
	}
	if AbutsAny([]Zone{lo}, []Zone{lo}) {
		t.Error("AbutsAny: a zone abuts itself")
	}
	if v := Volume([]Zone{lo, hilo}); v != 0.75 {
		t.Errorf("Volume = %v, want 0.75", v)
	}
}
