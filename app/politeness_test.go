package app

import (
	"fmt"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/fixture"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
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
		PerIP: manager.DefaultPerIP, PerDomain: manager.DefaultPerDomain,
		Channels:   channels.Options{Prior: time.Hour, MaxDepth: 3, MaxPerFeedback: -1},
		Assignment: manager.AssignCAN,
	})
	s.waitMembers(t)
	var seeds []string
	for _, st := range sites {
		seeds = append(seeds, web.URL(st.Name))
	}
	if _, err := s.m.AddSeeds(seeds); err != nil {
		t.Fatal(err)
	}
	waitCrawled(t, s.m, 4*time.Minute, 1)
	if mf := web.MaxInFlightAll(); mf > manager.DefaultPerIP {
		t.Errorf("the shops' address answered %d requests at once, want at most %d", mf, manager.DefaultPerIP)
	}
	t.Logf("most requests in flight to the address: %d", web.MaxInFlightAll())
}
