package assign

import (
	"math"
	"slices"
)

// Spread describes one way of handing every host to one of all the
// crawlers, all online and idle: how near and how even it is.
type Spread struct {
	Rule string
	// MeanRTT is the mean crawler–host RTT in ms.
	MeanRTT float64
	// CV is the coefficient of variation of hosts per crawler; Max the
	// most hosts on one crawler; Idle the crawlers with none.
	CV        float64
	Max, Idle int
	// TopHosts and TopPages are the shares of hosts and of pages held by
	// the tenth of crawlers holding the most hosts.
	TopHosts, TopPages float64
	// OverCL is the hosts beyond CL on their crawler: queued from the
	// start of a round even if every task took the same time.
	OverCL int
}

// Spreads compares the ways of handing hosts out, before any churn: the
// nearest crawler by measured RTT (the ideal the coordinates approximate),
// the nearest by coordinate, the NC-CAN zone owner with crawlers joined in
// index order, the same with load-aware joins (Config.LoadJoin), and
// consistent hashing (DHT).
func (s *Scenario) Spreads() []Spread {
	w := s.World
	nc, nh := len(w.CrawlerNode), len(w.HostNode)
	nearest := func(d func(c, h int) float64) func(int) int {
		return func(h int) int {
			best := 0
			for c := 1; c < nc; c++ {
				if d(c, h) < d(best, h) {
					best = c
				}
			}
			return best
		}
	}
	// joined is an engine with every crawler joined in index order, to
	// the CAN and the hash ring alike.
	joined := func(loadJoin bool) *engine {
		e := s.newEngine(NCCAN, 0)
		for c := range e.cr {
			pt := w.CrawlerPoint[c]
			if loadJoin {
				pt = e.joinPoint(pt)
			}
			if _, err := e.ov.Join(e.cr[c].id, pt, e.clock()); err != nil {
				panic(err) // distinct IDs and points of the overlay's dimension
			}
			if err := e.ring.Add(e.cr[c].id, 1); err != nil {
				panic(err) // distinct IDs
			}
		}
		return e
	}
	canOwner := func(e *engine) func(int) int {
		return func(h int) int {
			id, _ := e.ov.Owner(w.HostPoint[h])
			return int(e.byID[id])
		}
	}
	plain, loaded := joined(false), joined(true)
	rules := []struct {
		name  string
		owner func(int) int
	}{
		{"nearest crawler by RTT", nearest(func(c, h int) float64 { return w.RTT(c, h) })},
		{"nearest crawler by coordinate", nearest(func(c, h int) float64 { return w.CrawlerCoord[c].DistanceTo(w.HostCoord[h]) })},
		{"NC-CAN zone owner", canOwner(plain)},
		{"NC-CAN zone owner, load-aware joins", canOwner(loaded)},
		{"consistent hashing (DHT)", func(h int) int { id, _ := plain.ring.Owner(hostName(h)); return int(plain.byID[id]) }},
	}
	out := make([]Spread, 0, len(rules))
	for _, r := range rules {
		hosts, pages := make([]float64, nc), make([]float64, nc)
		rtt := 0.0
		for h := range nh {
			c := r.owner(h)
			hosts[c]++
			pages[c] += float64(s.Pages[h])
			rtt += w.RTT(c, h)
		}
		sp := Spread{Rule: r.name, MeanRTT: rtt / float64(nh), CV: cv(hosts)}
		order := make([]int, nc)
		for c := range order {
			order[c] = c
		}
		slices.SortStableFunc(order, func(a, b int) int { return int(hosts[b] - hosts[a]) })
		top := max(1, nc/10)
		totalPages := 0.0
		for _, p := range pages {
			totalPages += p
		}
		for i, c := range order {
			if i < top {
				sp.TopHosts += hosts[c] / float64(nh)
				sp.TopPages += pages[c] / totalPages
			}
			sp.Max = max(sp.Max, int(hosts[c]))
			if hosts[c] == 0 {
				sp.Idle++
			}
			sp.OverCL += max(0, int(hosts[c])-s.Config.CL)
		}
		out = append(out, sp)
	}
	return out
}

// Ceiling is what any assignment of whole units could download per second
// in Mb/s, averaged over a round, with every crawler–host RTT RTT ms (as
// measured, so after Config.RTTScale): All if every page of every host
// were fetched each round, OneConnection if each host is fetched over one
// connection (paper 002 §5.3), so that a host bigger than a round's worth
// of pages on one connection adds only that much, and Split the same for
// LBI-split's pieces. Crawler capacity is not counted: these bound the
// demand, not the supply.
type Ceiling struct {
	RTT                       float64
	All, OneConnection, Split float64
	// TooBig counts the hosts that one connection cannot fetch whole
	// within a crawler's mean lifetime at this RTT: they are never
	// completed, where paper 002's Fig. 21 has every host recrawled at
	// least twice.
	TooBig int
}

// Ceilings computes the Ceiling at each RTT.
func (s *Scenario) Ceilings(rtts ...float64) []Ceiling {
	cfg := s.Config
	bits := cfg.PageBytes * 8
	round := float64(cfg.Resubmit) * cfg.StepSeconds
	sum := func(units []Unit, perPage float64) (all, one float64) {
		for _, u := range units {
			all += float64(u.Pages)
			one += math.Min(float64(u.Pages), round/perPage)
		}
		return all * bits / round / 1e6, one * bits / round / 1e6
	}
	out := make([]Ceiling, 0, len(rtts))
	for _, rtt := range rtts {
		per := cfg.pageSeconds(rtt)
		all, one := sum(s.Whole, per)
		_, split := sum(s.Split, per)
		c := Ceiling{RTT: rtt, All: all, OneConnection: one, Split: split}
		for _, p := range s.Pages {
			if float64(p)*per > cfg.LifetimeMean*cfg.StepSeconds {
				c.TooBig++
			}
		}
		out = append(out, c)
	}
	return out
}
