package swarm

import (
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/fixture"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
)

func TestSummaryFill(t *testing.T) {
	l := &emulate.Layout{Matrix: emulate.MatrixSeattle, Nodes: map[string]int{
		HostIP(0): 0, HostIP(1): 1, ClientIP(0): 2, ClientIP(1): 3,
	}}
	s := &Swarm{
		Layout:  l,
		Clients: []*Client{{}, {}},
		Web: &WebProc{Hosts: []fixture.HostInfo{
			{Site: fixture.Site{Name: "a"}, Addr: HostIP(0) + ":80"},
			{Site: fixture.Site{Name: "b"}, Addr: HostIP(1) + ":8080"},
		}},
	}
	web := map[string]fixture.Stats{
		"a": {MaxClients: 1, PagesBy: map[string]int64{ClientIP(0): 3, "127.0.0.1": 100}},
		"b": {MaxClients: 2, PagesBy: map[string]int64{ClientIP(1): 1}},
	}
	st := manager.Status{Channels: 2, Tasks: map[string]int{"done": 2, "failed": 1}, Sent: 3,
		Stored:       storage.Totals{Pages: 4},
		Contributors: []storage.Contributor{{Peer: "p", Receipts: 2}}}
	var sum Summary
	s.fill(&sum, st, web, 2*time.Second)

	ra, _ := l.RTT(ClientIP(0), HostIP(0))
	rb, _ := l.RTT(ClientIP(1), HostIP(1))
	want := (3*float64(ra) + float64(rb)) / 4 / float64(time.Millisecond)
	if sum.PagesServed != 4 || sum.MeanRTTms < want-0.1 || sum.MeanRTTms > want+0.1 {
		t.Fatalf("pages %d, mean RTT %v ms; want 4 pages (not the outsider's), %.1f ms", sum.PagesServed, sum.MeanRTTms, want)
	}
	if sum.MaxClientsPerHost != 2 || sum.Lost != 1 || sum.TasksCV != 1 || sum.PagesPerSecond != 2 {
		t.Fatalf("summary %+v", sum)
	}
}
