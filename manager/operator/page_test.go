package operator

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/proto/entry"
)

func TestSwarmMapLegend(t *testing.T) {
	half := func(lo, hi float64) entry.Box {
		return entry.Box{Lo: []float64{lo, 0, 0}, Hi: []float64{hi, 1, 1}}
	}
	sw := Swarm{
		Peers: []SwarmPeer{
			{ID: "12D3KooWpeerAAAAAA", Zones: []entry.Box{half(0, 0.5)}},
			{ID: "12D3KooWpeerBBBBBB", Zones: []entry.Box{half(0.5, 1), half(0.5, 0.75)}},
			{ID: "12D3KooWpeerCCCCCC"}, // joined, no zone yet
		},
		Hosts: []SwarmHost{
			{Channel: "a.example", Point: []float64{0.1, 0.5, 0}, Owner: "12D3KooWpeerAAAAAA"},
			{Channel: "b.example", Point: []float64{0.7, 0.5, 0}, Owner: "12D3KooWpeerBBBBBB"},
			{Channel: "c.example", Point: []float64{0.9, 0.5, 0}, Owner: "12D3KooWpeerBBBBBB"},
			{Channel: "d.example", Point: []float64{0.3, 0.5, 0}, Owner: "gone"},
		},
	}
	sm := swarmMap(sw, 100)
	type peer struct {
		x, y         float64
		placed       bool
		zones, hosts int
	}
	want := []peer{{25, 50, true, 1, 1}, {75, 50, true, 2, 2}, {0, 0, false, 0, 0}}
	if len(sm.Peers) != len(want) {
		t.Fatalf("%d peers in the legend, want %d", len(sm.Peers), len(want))
	}
	for i, w := range want {
		p := sm.Peers[i]
		if got := (peer{p.X, p.Y, p.Placed, p.Zones, p.Hosts}); got != w {
			t.Errorf("peer %d: %+v, want %+v", i, got, w)
		}
	}
	var buf bytes.Buffer
	st := Status{Tasks: map[string]int{"cancelled": 3}, Cancelled: map[string]int{"refused": 1, "expired": 2}}
	if err := pageTemplate.Execute(&buf, pageData{Status: st, Map: sm}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, s := range []string{"3 (expired 2, refused 1)", "<code>…CCCCCC</code>", `r="6"`} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Index(page, "<h2>The swarm</h2>") > strings.Index(page, "<h2>Channels</h2>") {
		t.Error("the swarm drawing comes after the channels")
	}
}
