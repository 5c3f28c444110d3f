package app

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/domain"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// TestSwarmKeepsToTheIPCap: twelve shops on one address, six volunteers
// and the default caps: the address never answers more than two requests
// at once, and every shop is crawled.
func TestSwarmKeepsToTheIPCap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 7 libp2p hosts and 12 web hosts")
	}
	sites := make([]fixture.Site, 12)
	for i := range sites {
		sites[i] = fixture.Site{Name: fmt.Sprintf("shop-%02d.test", i), Pages: 8, PageBytes: 2 << 10}
	}
	// Every shop on 127.0.0.1, each answer 50 ms late: crawls of
	// different shops overlap.
	web, err := fixture.New(sites, fixture.Options{Delay: func(string, string) time.Duration { return 50 * time.Millisecond }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Close() })
	s := startSwarmWith(t, 6, manager.Options{
		Placement:  manager.PlacementOptions{Assignment: manager.AssignCAN},
		Politeness: manager.PolitenessOptions{PerIP: manager.DefaultPerIP, PerDomain: manager.DefaultPerDomain},
		Schedule:   manager.ScheduleOptions{Channels: channels.Options{Prior: time.Hour, MaxDepth: 3, MaxPerFeedback: -1}},
	})
	s.waitMembers(t)
	s.seedWeb(t, web)
	waitCrawled(t, s.m, 4*time.Minute, 1)
	if mf := web.MaxInFlightAll(); mf > manager.DefaultPerIP {
		t.Errorf("the shops' address answered %d requests at once, want at most %d", mf, manager.DefaultPerIP)
	}
	t.Logf("most requests in flight to the address: %d", web.MaxInFlightAll())
}

// TestSwarmKeepsToDomainAndIPCaps crawls, by name, a web that is not made
// of hosts alone: six shops of different domains on one address, six
// subdomains of one domain on six addresses, a wildcard-subdomain trap, a
// firewall, a site that answers 429, one with a Crawl-delay and six
// ordinary sites, with six volunteers of which two leave and two new ones
// join halfway. With the default caps no address and no registrable
// domain answers more than two requests at once, the trap makes no more
// channels than its domain's budget, the firewall gets at most 5 requests
// after its challenge and none is stored, the 429 rests its site a
// minute, the Crawl-delay holds, and every site is crawled.
func TestSwarmKeepsToDomainAndIPCaps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 9 libp2p hosts and 19 web hosts")
	}
	const budget = 12
	var (
		sites []fixture.Site
		ips   []string
	)
	add := func(ip string, st fixture.Site) {
		st.Pages, st.PageBytes = cmp.Or(st.Pages, 8), 2<<10
		sites = append(sites, st)
		ips = append(ips, ip)
	}
	for i := range 6 {
		add("127.0.0.2", fixture.Site{Name: fmt.Sprintf("shop-%d.test", i)})
		add(fmt.Sprintf("127.0.4.%d", i+1), fixture.Site{Name: fmt.Sprintf("s%d.one.test", i)})
		add(fmt.Sprintf("127.0.5.%d", i+1), fixture.Site{Name: fmt.Sprintf("plain-%d.test", i)})
	}
	add("127.0.0.3", fixture.Site{Name: "trap.test", Trap: true})
	// A firewall that challenges after 3 of its 30 pages, a site that
	// answers 429 after 3 of 30, and one that asks for 2 s between
	// requests.
	add("127.0.6.1", fixture.Site{Name: "waf.test", Pages: 30, RefuseAfter: 3, Refusal: fixture.RefuseChallenge})
	add("127.0.6.2", fixture.Site{Name: "busy.test", Pages: 30, RefuseAfter: 3, Refusal: fixture.RefuseTooMany})
	add("127.0.6.3", fixture.Site{Name: "slow.test", CrawlDelay: 2 * time.Second})
	web, err := fixture.New(sites, fixture.Options{
		Names: true,
		IP:    func(k int) string { return ips[k] },
		// Each answer 50 ms late: crawls of different sites overlap.
		Delay: func(string, string) time.Duration { return 50 * time.Millisecond },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Close() })
	resolveWith(t, web.Names())

	s := startSwarmWith(t, 6, manager.Options{
		Politeness: manager.PolitenessOptions{PerIP: manager.DefaultPerIP, PerDomain: manager.DefaultPerDomain},
		Schedule:   manager.ScheduleOptions{Channels: channels.Options{Prior: 45 * time.Second, MaxDepth: 3, DomainBudget: budget}},
		Placement:  manager.PlacementOptions{Assignment: manager.AssignCAN},
		// A task sent to a volunteer as it leaves may be lost in the
		// overlay (the send is told nothing): the manager counts it lost
		// once it was not started in time and crawls its channel at the
		// next round. Short rounds and start window, as in swarm's
		// churn test, let that happen within the test.
		Leases: manager.LeaseOptions{StartWithin: 30 * time.Second, ClockSkew: 2 * time.Second},
	})
	s.waitMembers(t)
	s.seedWeb(t, web)

	// Churn halfway: two volunteers leave, two new ones join.
	eventuallyFor(t, 2*time.Minute, "half the sites crawled", func() bool { return updatedChannels(t, s.m) >= len(sites)/2 })
	for _, i := range []int{0, 1} {
		if st, err := s.clients[i].Status(context.Background()); err == nil {
			t.Logf("volunteer %d, %s, leaves", i, st.Overlay.Peer)
		}
		s.cancelClient[i]()
		if err := <-s.clientsDone[i]; err != nil {
			t.Errorf("stopping volunteer %d: %v", i, err)
		}
		stopped := make(chan error, 1)
		stopped <- nil
		s.clientsDone[i] = stopped
	}
	s.addClient(t, 6, nil)
	s.addClient(t, 7, nil)
	waitCrawled(t, s.m, 4*time.Minute, 1)

	for ip, n := range web.MaxInFlightByIP() {
		if n > manager.DefaultPerIP {
			t.Errorf("address %s answered %d requests at once, want at most %d", ip, n, manager.DefaultPerIP)
		}
	}
	for d, n := range web.MaxInFlightByDomain() {
		if n > manager.DefaultPerDomain {
			t.Errorf("domain %s answered %d requests at once, want at most %d", d, n, manager.DefaultPerDomain)
		}
	}
	// Each challenge stops the crawl and rests the site; with rounds of
	// 45 s a long run challenges again after the rest, so what counts is
	// what came within a minute of a challenge.
	if st := web.Stats("waf.test"); st.Refusals == 0 || st.SoonAfterRefusal > 5 {
		t.Errorf("the firewall challenged %d times and got %d requests within a minute of a challenge, want some and at most 5", st.Refusals, st.SoonAfterRefusal)
	}
	if st := web.Stats("busy.test"); st.Refusals == 0 || st.AfterRefusal > 0 && st.MinAfterRefusal < time.Minute {
		t.Errorf("the busy site answered 429 %d times and got a request %v after one, want some and none within a minute", st.Refusals, st.MinAfterRefusal)
	}
	if st := web.Stats("slow.test"); st.Gaps == 0 || st.MinGap < 2*time.Second {
		t.Errorf("the site asking for 2 s between requests saw them %v apart (%s)", st.MinGap, st.MinGapAt)
	}
	eachText(t, s.m, func(target string, text []byte) {
		if strings.Contains(string(text), fixture.ChallengeText) {
			t.Errorf("%s: the firewall's challenge was stored as the site's text", target)
		}
	})
	all, err := s.m.Channels().All(0)
	if err != nil {
		t.Fatal(err)
	}
	trapped := 0
	for _, c := range all {
		if domain.Registrable(c.ID) == "trap.test" {
			trapped++
		}
	}
	if trapped <= 1 || trapped > budget {
		t.Errorf("the trap made %d channels, want some and at most its budget of %d", trapped, budget)
	}
	waf, busy, slow := web.Stats("waf.test"), web.Stats("busy.test"), web.Stats("slow.test")
	t.Logf("most in flight by address %v, by domain %v; %d channels of the trap, %d in all; "+
		"%d requests after the firewall's challenge, %d after the 429, %v between the slow site's requests",
		web.MaxInFlightByIP(), web.MaxInFlightByDomain(), trapped, len(all), waf.AfterRefusal, busy.AfterRefusal, slow.MinGap)
}

// updatedChannels counts the channels with at least one result.
func updatedChannels(t *testing.T, m *manager.Manager) int {
	all, err := m.Channels().All(0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range all {
		if c.Updates > 0 {
			n++
		}
	}
	return n
}

// resolveWith serves names (name → IPv4 address) from a fixture DNS until
// the test ends, and makes it the process's resolver: every part of the
// process that resolves a name (the crawlers, the volunteers' reports of
// addresses, distance measurements) asks it.
func resolveWith(t *testing.T, names map[string]string) {
	t.Helper()
	dns, err := fixture.NewDNS(names)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dns.Close() })
	was := net.DefaultResolver
	net.DefaultResolver = dns.Resolver()
	t.Cleanup(func() { net.DefaultResolver = was })
}
