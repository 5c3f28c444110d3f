package swarm

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/host"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// roundTrips counts the pages the web served to swarm clients, among those
// a host (by name) served to a requester IP that count accepts, and
// their mean emulated round trip in milliseconds from the requester and
// from every client.
func (s *Swarm) roundTrips(web map[string]fixture.Stats, count func(name, ip string) bool) (pages int64, rtt, all float64) {
	for name, hs := range web {
		if s.Layout == nil {
			// A NAT lab: no emulated latency, and every requester is a
			// volunteer (or its home router).
			for _, n := range hs.PagesBy {
				pages += n
			}
			continue
		}
		host := s.webIP(name)
		toAll := s.meanToClients(host)
		for ip, n := range hs.PagesBy {
			d, ok := s.Layout.RTT(ip, host)
			if !ok || !count(name, ip) {
				continue // not a swarm client, or not counted
			}
			pages += n
			rtt += float64(n) * float64(d) / float64(time.Millisecond)
			all += float64(n) * toAll
		}
	}
	if pages > 0 {
		rtt = math.Round(rtt/float64(pages)*10) / 10
		all = math.Round(all/float64(pages)*10) / 10
	}
	return pages, rtt, all
}

// CountChecksApart fills the crawls' mean round trips and the pages
// spot-checks fetched (Summary.MeanCrawlRTTms, CheckPages) from the
// web's counts Observe last read and the stopped manager's tasks.
func (s *Swarm) CountChecksApart(sum *Summary, rep ChannelReport) error {
	if s.web == nil {
		return errors.New("count spot-checks apart: the web's counts were never read")
	}
	ipOf := map[string]string{} // peer ID → client IP
	for _, c := range s.Clients {
		key, err := host.LoadKey(homeDirs(c.Home).PeerKeyFile())
		if err != nil {
			return fmt.Errorf("%s's identity: %w", c.Name, err)
		}
		id, err := peer.IDFromPrivateKey(key)
		if err != nil {
			return err
		}
		ipOf[id.String()] = c.IP
	}
	nameOf := map[string]string{} // host:port → host name
	for _, h := range s.Web.Hosts {
		nameOf[h.Addr] = h.Name
	}
	isCheck := checkedOnly(rep.Held, ipOf, nameOf)
	sum.CheckPages, _, _ = s.roundTrips(s.web, isCheck)
	crawl := func(name, ip string) bool { return !isCheck(name, ip) }
	_, sum.MeanCrawlRTTms, sum.MeanCrawlHostAllRTTms = s.roundTrips(s.web, crawl)
	sum.MeanCrawlNearestRTTms = s.roundTripsTo(s.web, crawl, s.nearestClient)
	named := map[string]string{} // host name → IP of the client named nearest
	for hostPort, l := range rep.Located {
		if ip, ok := ipOf[l.Nearest]; ok {
			named[nameOf[hostPort]] = ip
		}
	}
	sum.MeanCrawlNamedRTTms = s.roundTripsTo(s.web, crawl, func(host string) (string, bool) {
		ip, ok := named[host]
		return ip, ok
	})
	return nil
}

// roundTripsTo is the mean emulated round trip in milliseconds, per page
// a host (by name) served to a requester IP that count accepts, from the
// host to the client to(name) names in the requester's stead; pages of
// hosts it names none for are left out.
func (s *Swarm) roundTripsTo(web map[string]fixture.Stats, count func(name, ip string) bool, to func(name string) (ip string, ok bool)) float64 {
	if s.Layout == nil {
		return 0
	}
	var pages int64
	var rtt float64
	for name, hs := range web {
		ip, ok := to(name)
		if !ok {
			continue
		}
		host := s.webIP(name)
		d, ok := s.Layout.RTT(ip, host)
		if !ok {
			continue
		}
		for req, n := range hs.PagesBy {
			if _, client := s.Layout.RTT(req, host); !client || !count(name, req) {
				continue
			}
			pages += n
			rtt += float64(n) * ms(d)
		}
	}
	if pages == 0 {
		return 0
	}
	return math.Round(rtt/float64(pages)*10) / 10
}

// nearestClient returns the IP of the client nearest the host named name
// by emulated round trip.
func (s *Swarm) nearestClient(name string) (string, bool) {
	host := s.webIP(name)
	ip, best, found := "", time.Duration(0), false
	for _, c := range s.Clients {
		if d, ok := s.Layout.RTT(c.IP, host); ok && (!found || d < best) {
			ip, best, found = c.IP, d, true
		}
	}
	return ip, found
}

// webIP returns the IP of the web host named name, "" when there is none.
func (s *Swarm) webIP(name string) string {
	for _, h := range s.Web.Hosts {
		if h.Name == name {
			return h.Addr[:len(h.Addr)-len(portOf(h.Addr))-1]
		}
	}
	return ""
}

// checkedOnly returns whether a host (by name) served a requester (by IP)
// for spot-checks alone: some held task of the host was a spot-check at
// that requester, and none a crawl. ipOf maps peer IDs to requesters'
// IPs, nameOf the tasks' host:port to host names.
func checkedOnly(held []channels.Task, ipOf, nameOf map[string]string) func(name, ip string) bool {
	type pair struct{ name, ip string }
	checked, crawled := map[pair]bool{}, map[pair]bool{}
	for _, t := range held {
		for _, p := range []string{t.Peer, t.Holder} {
			ip, ok := ipOf[p]
			if !ok {
				continue
			}
			if t.Checks != "" {
				checked[pair{nameOf[t.Host], ip}] = true
			} else {
				crawled[pair{nameOf[t.Host], ip}] = true
			}
		}
	}
	return func(name, ip string) bool { return checked[pair{name, ip}] && !crawled[pair{name, ip}] }
}

// meanToClients is the mean emulated round trip in milliseconds from the
// host at ip to every client.
func (s *Swarm) meanToClients(ip string) float64 {
	var sum float64
	n := 0
	for _, c := range s.Clients {
		if d, ok := s.Layout.RTT(ip, c.IP); ok {
			sum += float64(d) / float64(time.Millisecond)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
