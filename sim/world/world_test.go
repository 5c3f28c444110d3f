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

// TestBoxTrimmed checks paper 002 §3.2's box: trained from the chosen
// sample with λ % trimmed off each side, it holds at least 1 − 2λ % of
// that sample on every axis, and those outside map onto the boundary.
func TestBoxTrimmed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hosts bool
		trim  float64
	}{
		{"crawlers, default λ", false, 0},
		{"hosts, default λ", true, 0},
		{"hosts, λ 10", true, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Build(Config{Hosts: 200, Crawlers: 40, VivaldiRounds: 40, BoxFromHosts: tc.hosts, Trim: tc.trim}, 3)
			if err != nil {
				t.Fatal(err)
			}
			lambda := tc.trim
			if lambda == 0 {
				lambda = 5
			}
			sample, points := w.CrawlerCoord, w.CrawlerPoint
			if tc.hosts {
				sample, points = w.HostCoord, w.HostPoint
			}
			for k := range w.Bounds.Lo {
				in := 0
				for i, c := range sample {
					v := c.Vec[k]
					if v >= w.Bounds.Lo[k] && v <= w.Bounds.Hi[k] {
						in++
					} else if p := points[i][k]; p != 0 && p != 1 {
						t.Fatalf("axis %d: coordinate %v outside [%v, %v] mapped to %v, not the boundary", k, v, w.Bounds.Lo[k], w.Bounds.Hi[k], p)
					}
				}
				if share := float64(in) / float64(len(sample)); share < 1-2*lambda/100 {
					t.Fatalf("axis %d: box holds %.3f of the sample, want ≥ %.3f", k, share, 1-2*lambda/100)
				}
				if in == len(sample) {
					t.Fatalf("axis %d: nothing trimmed at λ %v", k, lambda)
				}
			}
		})
	}
}
