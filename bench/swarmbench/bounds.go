package main

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/swarm"
)

// bounds says what placement could gain at best on this web and latency
// layout, from every host's page count and its RTT to every client, with
// each client crawling config.DefaultThreads hosts at once and a page
// taking the politeness wait plus one RTT (nothing else counted):
//   - the RTT per page with every host crawled by its nearest client, and
//     by a client drawn at random (what hashing gives on average);
//   - a crawl of the whole web once, as this benchmark runs it: the time
//     an omniscient schedule takes (largest host first, each to the
//     connection that would finish it soonest, knowing every size and
//     RTT), against hosts on clients drawn at random (each client taking
//     its hosts largest first; mean of 200 draws);
//   - a swarm with every host always due (the paper's long-run
//     throughput): pages/s with the best matching of hosts to the
//     clients' connections (greedy by RTT, one connection per host),
//     against connections on random hosts;
//   - the spread of hosts over clients (CV of hosts per client) with
//     every host at its nearest client, and at random (mean of the
//     draws): what placement by round trip costs the spread before any
//     balancing.
//   - the RTT per page when no client may take more than its even share
//     of hosts (⌈hosts/clients⌉, hosts CV 0): each host to its nearest
//     client with room, the host–client pairs taken shortest first (a
//     planner that knows every RTT), and the hosts in the order they
//     came (one that places each as it comes): what a perfect spread
//     costs in round trips.
//
// An assignment that knows neither sizes nor RTTs, as the overlay does
// not, can only approach these ratios.
func bounds(s *swarm.Swarm, wait time.Duration) string {
	w := float64(wait) / float64(time.Millisecond)
	cl := config.DefaultThreads
	type host struct {
		pages int
		rtt   []float64 // ms to each client
	}
	var hosts []host
	for _, h := range s.Web.Hosts {
		ip, _, err := net.SplitHostPort(h.Addr)
		if err != nil {
			return ""
		}
		hh := host{pages: h.Pages}
		for _, c := range s.Clients {
			d, ok := s.Layout.RTT(ip, c.IP)
			if !ok {
				return ""
			}
			hh.rtt = append(hh.rtt, float64(d)/float64(time.Millisecond))
		}
		hosts = append(hosts, hh)
	}
	peers := len(s.Clients)
	if len(hosts) == 0 || peers == 0 {
		return ""
	}
	slices.SortFunc(hosts, func(a, b host) int { return b.pages - a.pages })
	secs := func(h host, c int) float64 { return float64(h.pages) * (w + h.rtt[c]) / 1000 }

	var pages, nearSum, allSum float64
	for _, h := range hosts {
		p := float64(h.pages)
		pages += p
		nearSum += p * slices.Min(h.rtt)
		var all float64
		for _, r := range h.rtt {
			all += r
		}
		allSum += p * all / float64(peers)
	}

	free := make([]float64, peers*cl)
	var best float64
	for _, h := range hosts {
		at, fin := 0, math.Inf(1)
		for k := range free {
			if f := free[k] + secs(h, k/cl); f < fin {
				at, fin = k, f
			}
		}
		free[at] = fin
		best = max(best, fin)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const draws = 200
	perClient := make([]float64, peers)
	for _, h := range hosts {
		perClient[slices.Index(h.rtt, slices.Min(h.rtt))]++
	}
	nearCV := swarm.CV(perClient)
	var random, randomCV float64
	for range draws {
		clear(perClient)
		for range hosts {
			perClient[r.IntN(peers)]++
		}
		randomCV += swarm.CV(perClient) / draws
	}
	for range draws {
		clear(free)
		var end float64
		for _, h := range hosts {
			c := r.IntN(peers)
			k := c * cl
			for j := 1; j < cl; j++ {
				if free[c*cl+j] < free[k] {
					k = c*cl + j
				}
			}
			free[k] += secs(h, c)
			end = max(end, free[k])
		}
		random += end / draws
	}

	var pairs []pair
	var anyRate float64
	for i, h := range hosts {
		for c, rt := range h.rtt {
			pairs = append(pairs, pair{i, c, rt})
			anyRate += 1000 / (w + rt)
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int { return cmp.Compare(a.rtt, b.rtt) })
	share := (len(hosts) + peers - 1) / peers
	var capPlanned, capOnline float64
	matchShortest(pairs, len(hosts), peers, share, func(p pair) { capPlanned += float64(hosts[p.host].pages) * p.rtt })
	taken := make([]int, peers)
	for _, i := range r.Perm(len(hosts)) { // the order they came
		h, at := hosts[i], -1
		for c, rt := range h.rtt {
			if taken[c] < share && (at < 0 || rt < h.rtt[at]) {
				at = c
			}
		}
		taken[at]++
		capOnline += float64(h.pages) * h.rtt[at]
	}
	var rate float64
	conns := 0
	matchShortest(pairs, len(hosts), peers, cl, func(p pair) {
		rate += 1000 / (w + p.rtt)
		conns++
	})
	anyRate = anyRate / float64(len(pairs)) * float64(conns)
	return fmt.Sprintf("bounds on this web and layout (%d connections a client, %v wait): RTT per page %.1f ms from each host's nearest client, %.1f ms at random; the web crawled once in %.1f s by an omniscient schedule against %.1f s on random clients (ratio %.2f); with every host always due, %.1f pages/s from the best matching against %.1f at random (ratio %.2f); hosts per client CV %.2f with each host at its nearest client, %.2f at random; with at most %d hosts a client (CV 0), RTT per page %.1f ms planned, %.1f ms placed as they come",
		cl, wait, nearSum/pages, allSum/pages, best, random, random/best, rate, anyRate, rate/anyRate, nearCV, randomCV, share, capPlanned/pages, capOnline/pages)
}

// pair is a host and a client, by index, and their round trip in ms.
type pair struct {
	host, client int
	rtt          float64
}

// matchShortest matches hosts to clients greedily: it goes through pairs
// in their order (shortest round trip first, as sorted), takes each whose
// host is not matched yet and whose client has fewer than limit hosts,
// and calls take with it.
func matchShortest(pairs []pair, hosts, clients, limit int, take func(pair)) {
	used, n := make([]bool, hosts), make([]int, clients)
	for _, p := range pairs {
		if used[p.host] || n[p.client] == limit {
			continue
		}
		used[p.host], n[p.client] = true, n[p.client]+1
		take(p)
	}
}
