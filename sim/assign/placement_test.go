package assign

import (
	"reflect"
	"slices"
	"testing"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

func smallScenario(t *testing.T, mod func(*Config)) *Scenario {
	t.Helper()
	cfg := Paper().Shrink(0.1)
	cfg.Steps = 1500
	if mod != nil {
		mod(&cfg)
	}
	sc, err := NewScenario(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestOneConnection checks paper 002 §5.3's one connection per host:
// with Config.OneConnection no host ever has two tasks at once, and the
// resubmissions left out are counted; without it some host does (so the
// check can fail).
func TestOneConnection(t *testing.T) {
	for _, s := range []Scheme{DHT, NCCAN, LBI} {
		off, err := smallScenario(t, nil).Run(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		on, err := smallScenario(t, func(c *Config) { c.OneConnection = true }).Run(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if on.MaxConcurrent != 1 || on.Skipped == 0 {
			t.Errorf("%s with one connection: %d tasks of one host at once, %d resubmissions skipped", s, on.MaxConcurrent, on.Skipped)
		}
		if off.MaxConcurrent < 2 || off.Skipped != 0 {
			t.Errorf("%s without: %d tasks of one host at once, %d skipped", s, off.MaxConcurrent, off.Skipped)
		}
	}
}

// TestSwitchesDeterministic runs the switches together twice per scheme.
func TestSwitchesDeterministic(t *testing.T) {
	mod := func(c *Config) { c.OneConnection, c.LoadJoin, c.BoxFromHosts, c.RTTScale = true, true, true, 1.5 }
	_, a, err := Compare(smallScenario(t, mod).Config, 2, Schemes)
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := Compare(smallScenario(t, mod).Config, 2, Schemes)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("%s differs between two runs with seed 2", Schemes[i])
		}
	}
}

// TestLBIPlacement checks every LBI placement against load balancing on
// insert (paper 002 §4.2): a host leaves its proto-owner only when that
// crawler's task load is over the threshold, and then for a crawler whose
// page load is lower; the proto-owner is the NC-CAN owner.
func TestLBIPlacement(t *testing.T) {
	sc := smallScenario(t, nil)
	e := sc.newEngine(LBI, 0)
	for c := range e.cr {
		if _, err := e.ov.Join(e.cr[c].id, sc.World.CrawlerPoint[c], e.clock()); err != nil {
			t.Fatal(err)
		}
		e.cr[c].online = true
	}
	ot := can.Threshold(e.cfg.OT, e.capacity)
	moved := 0
	// Three rounds' worth of inserts with nothing finishing: loads rise
	// well past OT.
	for round := range 3 {
		for u := range e.units {
			proto, ok := e.owner(int32(u))
			if !ok {
				t.Fatal("no owner")
			}
			before := e.load(proto)
			got, ok := e.place(int32(u))
			if !ok {
				t.Fatal("not placed")
			}
			if got != proto {
				moved++
				if !(before.RTL > ot) {
					t.Fatalf("round %d unit %d moved off crawler %d at RTL %.0f ≤ OT %.0f", round, u, proto, before.RTL, ot)
				}
				if after := e.load(got); !(after.RPL < before.RPL) {
					t.Fatalf("round %d unit %d moved to crawler %d with RPL %.0f, not below the proto-owner's %.0f", round, u, got, after.RPL, before.RPL)
				}
			}
			e.tasks = append(e.tasks, task{unit: int32(u)})
			e.enqueue(got, uint32(len(e.tasks)-1))
		}
	}
	if moved == 0 {
		t.Fatal("no insert was forwarded: the check checked nothing")
	}
}

func TestClosestIn(t *testing.T) {
	z := can.Zone{Lo: can.Point{0.25, 0.5}, Hi: can.Point{0.5, 1}}
	for _, tc := range []struct {
		name string
		p    can.Point
	}{
		{"inside", can.Point{0.3, 0.7}},
		{"below", can.Point{0.1, 0.1}},
		{"past the open upper face", can.Point{0.9, 0.7}},
		{"past the closed face at 1", can.Point{0.3, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := closestIn(z, tc.p)
			if !z.Contains(q) {
				t.Fatalf("closestIn(%v) = %v, outside %v", tc.p, q, z)
			}
			if z.Contains(tc.p) && !slices.Equal(q, tc.p) {
				t.Fatalf("closestIn moved %v, which the zone holds, to %v", tc.p, q)
			}
			if d := z.Dist2(tc.p); d > 0 {
				if got := sq(q, tc.p); got > d+1e-12 {
					t.Fatalf("closestIn(%v) = %v at distance² %v, the zone's closest is %v", tc.p, q, got, d)
				}
			}
		})
	}
}

func sq(a, b can.Point) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// TestJoinPointFollowsLoad checks that a load-aware join lands in the
// zone with the most pages among the owner's and its neighbours'.
func TestJoinPointFollowsLoad(t *testing.T) {
	sc := smallScenario(t, func(c *Config) { c.LoadJoin = true })
	e := sc.newEngine(NCCAN, 0)
	half := len(e.cr) / 2
	for c := range half {
		if _, err := e.ov.Join(e.cr[c].id, sc.World.CrawlerPoint[c], e.clock()); err != nil {
			t.Fatal(err)
		}
	}
	moved := 0
	for c := half; c < len(e.cr); c++ {
		p := sc.World.CrawlerPoint[c]
		q := e.joinPoint(p)
		owner, _ := e.ov.Owner(p)
		best := -1.0
		for _, id := range append([]can.PeerID{owner}, e.ov.Neighbours(owner)...) {
			for _, z := range e.ov.Zones(id) {
				best = max(best, e.zonePages(z))
			}
		}
		at, _ := e.ov.Owner(q)
		var got float64
		for _, z := range e.ov.Zones(at) {
			if z.Contains(q) {
				got = e.zonePages(z)
			}
		}
		if got != best {
			t.Fatalf("crawler %d joins in a zone of %.0f pages; the most loaded nearby has %.0f", c, got, best)
		}
		if !slices.Equal(p, q) {
			moved++
		}
		if _, err := e.ov.Join(e.cr[c].id, q, e.clock()); err != nil {
			t.Fatal(err)
		}
	}
	if moved == 0 {
		t.Fatal("no join moved: the check checked nothing")
	}
}

// TestDiagnosis checks the diagnosis' invariants: the nearest crawler by
// RTT has the lowest mean RTT of all rules, hashing spreads hosts more
// evenly than the CAN, and the ceilings order as their definitions say.
func TestDiagnosis(t *testing.T) {
	sc := smallScenario(t, nil)
	sp := sc.Spreads()
	for _, s := range sp[1:] {
		if s.MeanRTT < sp[0].MeanRTT {
			t.Fatalf("%s: mean RTT %.1f below the nearest crawler's %.1f", s.Rule, s.MeanRTT, sp[0].MeanRTT)
		}
	}
	if dht, cn := sp[len(sp)-1], sp[2]; !(dht.CV < cn.CV) {
		t.Fatalf("hosts per crawler CV: hashing %.2f, NC-CAN %.2f", dht.CV, cn.CV)
	}
	cs := sc.Ceilings(20, 200)
	for _, c := range cs {
		if !(c.OneConnection <= c.All && c.OneConnection <= c.Split && c.Split <= c.All+1e-9) {
			t.Fatalf("ceilings at %v ms: all %.2f, one connection %.2f, split %.2f", c.RTT, c.All, c.OneConnection, c.Split)
		}
	}
	if !(cs[1].OneConnection < cs[0].OneConnection) || cs[1].TooBig < cs[0].TooBig || cs[1].TooBig == 0 {
		t.Fatalf("ceiling at 20 ms %+v, at 200 ms %+v", cs[0], cs[1])
	}
}
