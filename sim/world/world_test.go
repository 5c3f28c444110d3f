package world

import (
	"slices"
	"testing"
)

func TestBuildDeterministicAndPlaced(t *testing.T) {
	cfg := Config{Hosts: 300, Crawlers: 40, VivaldiRounds: 60}
	a, err := Build(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.HostPoint) != 300 || len(a.CrawlerPoint) != 40 {
		t.Fatalf("got %d hosts and %d crawlers", len(a.HostPoint), len(a.CrawlerPoint))
	}
	for h := range a.HostPoint {
		if !slices.Equal(a.HostPoint[h], b.HostPoint[h]) {
			t.Fatalf("host %d placed at %v then %v with the same seed", h, a.HostPoint[h], b.HostPoint[h])
		}
		for _, v := range a.HostPoint[h] {
			if v < 0 || v > 1 {
				t.Fatalf("host %d point %v outside the box", h, a.HostPoint[h])
			}
		}
	}
	// Hosts and crawlers come from disjoint originals.
	roles := map[int]string{}
	for _, k := range a.HostNode {
		roles[a.Matrix.Origin(k)] = "host"
	}
	for _, k := range a.CrawlerNode {
		if roles[a.Matrix.Origin(k)] == "host" {
			t.Fatalf("crawler node %d shares original %d with a host", k, a.Matrix.Origin(k))
		}
	}
	// Solved coordinates must predict the measured RTTs reasonably: the
	// median relative error of the fit stays under 50 %.
	res := slices.Clone(a.HostResidual)
	slices.Sort(res)
	if med := res[len(res)/2]; !(med < 0.5) {
		t.Fatalf("median host fit residual %.2f", med)
	}
	if rtt := a.RTT(0, 0); !(rtt > 0) {
		t.Fatalf("RTT(0,0) = %v", rtt)
	}
}
