package swarm

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
	"github.com/hivecrawl/hivecrawl/proto/report"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
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
	st := operator.Status{Channels: 2, Tasks: map[string]int{"done": 2, "failed": 1, "cancelled": 3}, Sent: 3,
		Cancelled:    map[string]int{"expired": 2, "refused": 1},
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
	if sum.Completed != 2 || sum.CancelledBy["expired"] != 2 || sum.CancelledBy["refused"] != 1 {
		t.Fatalf("completed %d, cancelled by reason %v; want 2, expired 2, refused 1", sum.Completed, sum.CancelledBy)
	}
}

// TestCrawlRoundTripsApart: pages a host served to a member that only
// spot-checked it count apart from the crawls' round trips; a member
// that crawled a host and also checked it counts as its crawler.
func TestCrawlRoundTripsApart(t *testing.T) {
	l := &emulate.Layout{Matrix: emulate.MatrixSeattle, Nodes: map[string]int{
		HostIP(0): 0, HostIP(1): 1, ClientIP(0): 2, ClientIP(1): 3,
	}}
	s := &Swarm{
		Layout:  l,
		Clients: []*Client{{IP: ClientIP(0)}, {IP: ClientIP(1)}},
		Web: &WebProc{Hosts: []fixture.HostInfo{
			{Site: fixture.Site{Name: "a"}, Addr: HostIP(0) + ":80"},
			{Site: fixture.Site{Name: "b"}, Addr: HostIP(1) + ":8080"},
		}},
	}
	web := map[string]fixture.Stats{
		"a": {PagesBy: map[string]int64{ClientIP(0): 3, ClientIP(1): 2}},
		"b": {PagesBy: map[string]int64{ClientIP(1): 5}},
	}
	held := []channels.Task{
		{Host: HostIP(0) + ":80", Peer: "p0"},
		{Host: HostIP(0) + ":80", Holder: "p1", Checks: "t-a"},
		{Host: HostIP(1) + ":8080", Peer: "p1"},
		{Host: HostIP(1) + ":8080", Peer: "p1", Checks: "t-b"},
	}
	isCheck := checkedOnly(held, map[string]string{"p0": ClientIP(0), "p1": ClientIP(1)},
		map[string]string{HostIP(0) + ":80": "a", HostIP(1) + ":8080": "b"})
	checks, _, _ := s.roundTrips(web, isCheck)
	pages, rtt, _ := s.roundTrips(web, func(name, ip string) bool { return !isCheck(name, ip) })
	ra, _ := l.RTT(ClientIP(0), HostIP(0))
	rb, _ := l.RTT(ClientIP(1), HostIP(1))
	want := (3*float64(ra) + 5*float64(rb)) / 8 / float64(time.Millisecond)
	if checks != 2 || pages != 8 || rtt < want-0.1 || rtt > want+0.1 {
		t.Fatalf("%d check pages, %d crawl pages at %.1f ms; want 2, 8 at %.1f ms", checks, pages, rtt, want)
	}
}

// TestCrawlRoundTripsTo: the crawls' pages measured from the client
// nearest their host and from the one the manager named, in the
// requester's stead; a host named no client is left out.
func TestCrawlRoundTripsTo(t *testing.T) {
	l := &emulate.Layout{Matrix: emulate.MatrixSeattle, Nodes: map[string]int{
		HostIP(0): 0, HostIP(1): 1, ClientIP(0): 2, ClientIP(1): 3, ClientIP(2): 4,
	}}
	s := &Swarm{
		Layout:  l,
		Clients: []*Client{{IP: ClientIP(0)}, {IP: ClientIP(1)}, {IP: ClientIP(2)}},
		Web: &WebProc{Hosts: []fixture.HostInfo{
			{Site: fixture.Site{Name: "a"}, Addr: HostIP(0) + ":80"},
			{Site: fixture.Site{Name: "b"}, Addr: HostIP(1) + ":8080"},
		}},
	}
	web := map[string]fixture.Stats{
		"a": {PagesBy: map[string]int64{ClientIP(0): 3, ClientIP(1): 2, "192.0.2.1": 7}},
		"b": {PagesBy: map[string]int64{ClientIP(1): 5}},
	}
	all := func(name, ip string) bool { return true }
	rtt := func(a, b string) float64 {
		d, ok := l.RTT(a, b)
		if !ok {
			t.Fatalf("no round trip between %s and %s", a, b)
		}
		return ms(d)
	}
	nearest := func(host string) (string, float64) {
		ip, best := "", math.Inf(1)
		for _, c := range s.Clients {
			if d := rtt(c.IP, host); d < best {
				ip, best = c.IP, d
			}
		}
		return ip, best
	}
	_, na := nearest(HostIP(0))
	_, nb := nearest(HostIP(1))
	want := math.Round((5*na+5*nb)/10*10) / 10
	if got := s.roundTripsTo(web, all, s.nearestClient); got != want {
		t.Fatalf("from the nearest clients %.1f ms, want %.1f (the requester outside the swarm left out)", got, want)
	}
	far, _ := nearest(HostIP(0))
	for _, c := range s.Clients {
		if rtt(c.IP, HostIP(0)) > rtt(far, HostIP(0)) {
			far = c.IP
		}
	}
	named := func(host string) (string, bool) { return far, host == "a" }
	want = math.Round(rtt(far, HostIP(0))*10) / 10
	if got := s.roundTripsTo(web, all, named); got != want {
		t.Fatalf("from the named client %.1f ms, want %.1f (a's pages alone)", got, want)
	}
	if got := s.roundTripsTo(web, func(name, _ string) bool { return name == "b" }, named); got != 0 {
		t.Fatalf("no counted page of a named host: %.1f ms, want 0", got)
	}
}

// TestChannelReport reads a stopped manager's channel database: one task
// completed, one lost and run again, two cancelled (expired, refused).
func TestChannelReport(t *testing.T) {
	m := &Manager{Home: t.TempDir()}
	if err := os.MkdirAll(m.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := channels.Open(filepath.Join(m.Dir(), manager.ChannelsFile), channels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	hosts := []string{"a.example", "b.example", "c.example", "d.example"}
	for _, h := range hosts {
		if _, err := db.AddSeeds([]string{"http://" + h + "/"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	issue := func(h string, round int, now time.Time) string {
		t.Helper()
		c, err := db.Get(h)
		if err != nil {
			t.Fatal(err)
		}
		tk := c.Tasks(round, channels.PagePlan{})[0]
		if err := db.Issue(h, round, []channels.Task{{ID: tk.ID, Channel: h, Host: h, Round: round, Issued: now, Deadline: now.Add(time.Hour)}}, now); err != nil {
			t.Fatal(err)
		}
		return tk.ID
	}
	ids := map[string]string{}
	for _, h := range hosts {
		ids[h] = issue(h, 1, t0)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.Complete(ids["a.example"], "p1", channels.Feedback{}, t0.Add(time.Minute))
	must(err)
	_, _, err = db.Cancel(ids["b.example"], 0, "", report.Expired, t0.Add(time.Minute))
	must(err)
	_, _, err = db.Cancel(ids["c.example"], 0, "", report.Refused, t0.Add(time.Minute))
	must(err)
	_, err = db.Expire(t0.Add(2*time.Hour), time.Minute) // d.example's task is lost
	must(err)
	again := issue("d.example", 2, t0.Add(2*time.Hour))
	_, err = db.Complete(again, "p2", channels.Feedback{}, t0.Add(3*time.Hour))
	must(err)
	must(db.PutLocated("a.example", channels.Located{Nearest: "p1", At: t0}))
	must(db.PutLocated("e.example", channels.Located{Nearest: "p2", At: t0})) // no task held
	must(db.Close())

	rep, err := m.ReadChannels()
	must(err)
	if len(rep.Located) != 1 || rep.Located["a.example"].Nearest != "p1" {
		t.Fatalf("located %v, want a.example's alone, named p1", rep.Located)
	}
	var sum Summary
	rep.AddChannels(&sum)
	if sum.Completed != 2 || sum.Lost != 1 || sum.Reexecuted != 1 || sum.ChannelsCrawled != 2 {
		t.Fatalf("completed %d, lost %d, re-executed %d, crawled %d; want 2, 1, 1, 2", sum.Completed, sum.Lost, sum.Reexecuted, sum.ChannelsCrawled)
	}
	want := map[string]int{report.Expired: 1, report.Refused: 1}
	if !maps.Equal(sum.CancelledBy, want) {
		t.Fatalf("cancelled by reason %v, want %v", sum.CancelledBy, want)
	}
	b, err := json.Marshal(sum)
	must(err)
	if !strings.Contains(string(b), `"tasks_cancelled_by_reason":{"expired":1,"refused":1}`) {
		t.Fatalf("summary line %s lacks the cancelled tasks by reason", b)
	}
}

// TestSummaryPoliteness reports, from the web's side, the worst host for
// each promise to a site: connections and requests at once, and the
// shortest gap between request starts.
func TestSummaryPoliteness(t *testing.T) {
	tests := []struct {
		name string
		web  map[string]fixture.Stats
		want Summary
		json []string // in the summary line
		not  []string // not in it
	}{
		{"no requests", map[string]fixture.Stats{"a": {}}, Summary{},
			[]string{`"max_conns_per_host":0`, `"max_in_flight_per_host":0`, `"max_clients_per_host":0`},
			[]string{`"min_gap_ms"`, `"max_conns_host"`}},
		{"one request: no gap", map[string]fixture.Stats{"a": {MaxConns: 1, MaxInFlight: 1, MaxClients: 1}},
			Summary{MaxConnsPerHost: 1, MaxConnsHost: "a", MaxInFlightPerHost: 1, MaxInFlightHost: "a", MaxClientsPerHost: 1},
			[]string{`"max_conns_per_host":1,"max_conns_host":"a"`}, []string{`"min_gap_ms"`}},
		{"each worst on its own host", map[string]fixture.Stats{
			"a": {MaxConns: 2, MaxInFlight: 1, MaxClients: 1, Gaps: 3, MinGap: 2 * time.Second, MinGapAt: "a's"},
			"b": {MaxConns: 1, MaxInFlight: 2, MaxClients: 1, Gaps: 1, MinGap: 1234567 * time.Nanosecond, MinGapAt: "b's"},
		}, Summary{MaxConnsPerHost: 2, MaxConnsHost: "a", MaxInFlightPerHost: 2, MaxInFlightHost: "b", MaxClientsPerHost: 1,
			MinGapMs: gapMs(1.235), MinGapHost: "b", MinGapAt: "b's"},
			[]string{`"max_in_flight_per_host":2,"max_in_flight_host":"b"`, `"min_gap_ms":1.235,"min_gap_host":"b","min_gap_at":"b's"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Swarm{Layout: &emulate.Layout{Matrix: emulate.MatrixSeattle}, Web: &WebProc{}}
			var sum Summary
			s.fill(&sum, operator.Status{}, tt.web, time.Second)
			got := Summary{
				MaxConnsPerHost: sum.MaxConnsPerHost, MaxConnsHost: sum.MaxConnsHost,
				MaxInFlightPerHost: sum.MaxInFlightPerHost, MaxInFlightHost: sum.MaxInFlightHost,
				MaxClientsPerHost: sum.MaxClientsPerHost,
				MinGapMs:          sum.MinGapMs, MinGapHost: sum.MinGapHost, MinGapAt: sum.MinGapAt,
			}
			if (got.MinGapMs == nil) != (tt.want.MinGapMs == nil) || got.MinGapMs != nil && *got.MinGapMs != *tt.want.MinGapMs {
				t.Fatalf("min gap %v ms, want %v", gapOrNil(got.MinGapMs), gapOrNil(tt.want.MinGapMs))
			}
			got.MinGapMs, tt.want.MinGapMs = nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("politeness %+v, want %+v", got, tt.want)
			}
			b, err := json.Marshal(sum)
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range tt.json {
				if !strings.Contains(string(b), part) {
					t.Errorf("summary line lacks %s: %s", part, b)
				}
			}
			for _, part := range tt.not {
				if strings.Contains(string(b), part) {
					t.Errorf("summary line has %s: %s", part, b)
				}
			}
		})
	}
}

// gapMs returns a Summary.MinGapMs.
func gapMs(ms float64) *float64 { return &ms }

func gapOrNil(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
