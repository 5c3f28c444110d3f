package hashring

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/latency"
	"github.com/hivecrawl/hivecrawl/p2p/can"
	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// TestCoordinateCANBeatsHashing places paper 002's setting on the PlanetLab
// matrix, enlarged by replication to 1,740 nodes: 140 crawlers get Vivaldi
// coordinates and join a 3-d CAN at their mapped point; 1,600 web hosts are
// placed by the host solver from 8 crawlers' RTTs and inserted at their
// mapped point. It compares the mean real crawler–host RTT and the load
// spread (coefficient of variation of hosts per crawler) of consistent
// hashing, the plain coordinate CAN, and the CAN with load balancing on
// insert (TTL 3, OT 11 as in the paper, one page per host). Figures are in
// docs/developer/overlay-figures.md.
func TestCoordinateCANBeatsHashing(t *testing.T) {
	const (
		crawlers = 140
		nHosts   = 1600
	)
	r := rand.New(rand.NewPCG(2, 1600))
	m := latency.PlanetLab().Replicate(crawlers+nHosts, r)
	order := r.Perm(m.Len())
	peerNodes, hostNodes := order[:crawlers], order[crawlers:]
	clients, err := coord.Converge(m, peerNodes, can.DefaultDim, 200, r)
	if err != nil {
		t.Fatal(err)
	}
	coords := make([]coord.Coord, crawlers)
	for i, c := range clients {
		coords[i] = c.Coord()
	}
	bounds, err := coord.TrainBounds(coords, coord.DefaultTrim)
	if err != nil {
		t.Fatal(err)
	}
	o := can.NewMap(can.DefaultDim, time.Hour)
	ring := New(0)
	index := map[can.PeerID]int{}
	for i, c := range coords {
		id := can.PeerID(fmt.Sprintf("crawler-%03d", i))
		index[id] = i
		if _, err := o.Join(id, bounds.Map(c), time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		if err := ring.Add(id, 1); err != nil {
			t.Fatal(err)
		}
	}
	rtt := func(peer can.PeerID, host int) float64 {
		v, ok := m.Sym(peerNodes[index[peer]], host)
		if !ok {
			t.Fatalf("no RTT between %s and host %d", peer, host)
		}
		return v
	}

	type scheme struct {
		name  string
		owner func(host int, point can.Point) can.PeerID
		load  map[can.PeerID]int
		rtt   float64
	}
	capacity := can.Capacity{BWDownload: 1, MemoryGB: 1}
	ot := can.Threshold(11, capacity)
	schemes := []*scheme{
		{name: "consistent hashing", owner: func(h int, _ can.Point) can.PeerID {
			id, _ := ring.Owner(fmt.Sprintf("host-%d.example", h))
			return id
		}},
		{name: "coordinate CAN", owner: func(_ int, p can.Point) can.PeerID {
			id, _ := o.Owner(p)
			return id
		}},
		{name: "coordinate CAN + LBI"},
	}
	lbi := schemes[2]
	lbi.owner = func(_ int, p can.Point) can.PeerID {
		id, _ := o.Owner(p)
		loadOf := func(q can.PeerID) can.Load { return can.NewLoad(lbi.load[q], int64(lbi.load[q]), capacity) }
		for ttl := can.DefaultTTL; ; {
			d := can.DecideInsert(loadOf(id), ot, o.NeighbourInfos(id, loadOf), ttl)
			if d.Accept {
				return id
			}
			id, ttl = d.To, d.TTL
		}
	}
	for _, s := range schemes {
		s.load = map[can.PeerID]int{}
	}
	for _, h := range hostNodes {
		var probes []coord.Probe
		for _, pi := range r.Perm(crawlers)[:8] {
			if v, ok := m.RTT(peerNodes[pi], h); ok {
				probes = append(probes, coord.Probe{Peer: coords[pi], RTT: v})
			}
		}
		sol, err := coord.Solve(probes, coord.SolveConfig{}, r)
		if err != nil {
			t.Fatal(err)
		}
		p := bounds.Map(sol.Coord)
		for _, s := range schemes {
			id := s.owner(h, p)
			s.load[id]++
			s.rtt += rtt(id, h)
		}
	}
	best := 0.0
	for _, h := range hostNodes {
		b := math.Inf(1)
		for pi := range peerNodes {
			if v, ok := m.Sym(peerNodes[pi], h); ok && v < b {
				b = v
			}
		}
		best += b
	}
	t.Logf("nearest crawler (ideal): mean RTT %.1f ms", best/nHosts)
	results := map[string][2]float64{}
	for _, s := range schemes {
		mean := s.rtt / nHosts
		cv := loadCV(s.load, crawlers)
		results[s.name] = [2]float64{mean, cv}
		t.Logf("%s: mean crawler–host RTT %.1f ms, hosts per crawler CV %.2f, max %d", s.name, mean, cv, maxLoad(s.load))
	}
	hash, plain, balanced := results["consistent hashing"], results["coordinate CAN"], results["coordinate CAN + LBI"]
	// Bounds, not directions: a rule that loses half its effect still
	// goes the right way. Seeded, this run gives 0.45× and 0.50× hashing's
	// RTT and an LBI CV of 0.19 against 1.39 without it.
	for name, got := range map[string]float64{"coordinate CAN": plain[0], "coordinate CAN + LBI": balanced[0]} {
		if got > 0.6*hash[0] {
			t.Errorf("%s: mean RTT %.1f ms, more than 0.6× consistent hashing's %.1f ms", name, got, hash[0])
		}
	}
	if balanced[1] > 0.5 || balanced[1] >= plain[1] {
		t.Errorf("LBI load CV %.2f (plain CAN %.2f); want at most 0.5", balanced[1], plain[1])
	}
}

func loadCV(load map[can.PeerID]int, peers int) float64 {
	sum, sq := 0.0, 0.0
	for _, n := range load {
		sum += float64(n)
		sq += float64(n) * float64(n)
	}
	mean := sum / float64(peers)
	return math.Sqrt(sq/float64(peers)-mean*mean) / mean
}

func maxLoad(load map[can.PeerID]int) int {
	m := 0
	for _, n := range load {
		m = max(m, n)
	}
	return m
}
