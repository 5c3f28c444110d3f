package swarm

import (
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func z(lo0, lo1, hi0, hi1 float64) localapi.Zone {
	return localapi.Zone{Lo: []float64{lo0, lo1}, Hi: []float64{hi0, hi1}}
}

func TestTilingError(t *testing.T) {
	tests := []struct {
		name  string
		zones []localapi.Zone
		ok    bool
	}{
		{"one zone", []localapi.Zone{z(0, 0, 1, 1)}, true},
		{"halves and quarters", []localapi.Zone{z(0, 0, .5, 1), z(.5, 0, 1, .5), z(.5, .5, 1, 1)}, true},
		{"gap", []localapi.Zone{z(0, 0, .5, 1), z(.5, 0, 1, .5)}, false},
		{"overlap", []localapi.Zone{z(0, 0, .6, 1), z(.5, 0, 1, 1)}, false},
		{"empty zone", []localapi.Zone{z(0, 0, 0, 1)}, false},
		{"none", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := TilingError(tc.zones); (err == nil) != tc.ok {
				t.Fatalf("TilingError = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestCV(t *testing.T) {
	if got := CV([]float64{5, 5, 0, 0}); got != 1 {
		t.Fatalf("cv = %v, want 1", got)
	}
	if got := CV([]float64{3, 3, 3}); got != 0 {
		t.Fatalf("cv = %v, want 0", got)
	}
}

func TestUnlistedError(t *testing.T) {
	left := localapi.Zone{Lo: []float64{0, 0}, Hi: []float64{0.5, 1}}
	right := localapi.Zone{Lo: []float64{0.5, 0}, Hi: []float64{1, 1}}
	a := &localapi.Overlay{Peer: "a", Zones: []localapi.Zone{left}, Neighbours: []localapi.Neighbour{{Peer: "b"}}}
	b := &localapi.Overlay{Peer: "b", Zones: []localapi.Zone{right}}
	if err := UnlistedError([]*localapi.Overlay{a, b}, []string{"client-a", "client-b"}); err == nil || !strings.Contains(err.Error(), "client-b does not list client-a") {
		t.Fatalf("UnlistedError = %v; want client-b named", err)
	}
	b.Neighbours = []localapi.Neighbour{{Peer: "a"}}
	if err := UnlistedError([]*localapi.Overlay{a, b}, []string{"client-a", "client-b"}); err != nil {
		t.Fatalf("UnlistedError of peers listing each other = %v", err)
	}
}
