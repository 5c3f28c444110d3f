package swarm

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Summary is what a swarm run did, printed by `hivecrawl demo` as one JSON
// line. Every figure is counted, none estimated.
type Summary struct {
	// Hijack is what the zone hijackers got, with --hijackers.
	Hijack   *HijackSummary `json:"hijack,omitempty"`
	Peers    int            `json:"peers"`
	Hosts    int            `json:"hosts"`
	Seconds  float64        `json:"seconds"`
	Channels int            `json:"channels"`
	// ChannelsCrawled have had at least one result stored.
	ChannelsCrawled int `json:"channels_crawled"`
	// PagesStored is the storage module's page count.
	PagesStored int64 `json:"pages_stored"`
	// Tasks are the manager's issued tasks by state: open, done, failed
	// (no result before the deadline: lost, e.g. to a crash).
	Tasks map[string]int `json:"tasks"`
	// Sent counts tasks an overlay entry peer accepted.
	Sent int `json:"tasks_submitted"`
	// Completed counts tasks with a result stored (Tasks["done"]).
	Completed int `json:"tasks_completed"`
	// CancelledBy counts the tasks crawlers cancelled, by the reason they
	// reported: expired (waited in a queue past its interval) or refused
	// (the queue was full).
	CancelledBy map[string]int `json:"tasks_cancelled_by_reason"`
	// Lost counts failed tasks; Reexecuted the channels that lost a task
	// and also have a result stored (from the database after the run).
	Lost       int `json:"tasks_lost"`
	Reexecuted int `json:"channels_reexecuted"`
	// PagesServed counts pages the web served with a body to the swarm.
	PagesServed int64 `json:"pages_served"`
	// MeanRTTms is the emulated crawler–host round trip per page served,
	// in milliseconds (by the requester's and the host's place on the
	// latency matrix).
	MeanRTTms float64 `json:"mean_rtt_ms"`
	// MeanHostAllRTTms is, for the same pages, the mean round trip from
	// their host to every client: what a crawler chosen at random would
	// have had.
	MeanHostAllRTTms float64 `json:"mean_host_all_rtt_ms"`
	// MeanCrawlRTTms and MeanCrawlHostAllRTTms are the same two over the
	// pages crawls fetched, and CheckPages counts the pages spot-checks
	// fetched, which go on purpose to a member not near the host: the
	// pages a host served to a member that ran a spot-check of it and
	// held no crawl of it (from the stopped manager, CountChecksApart).
	MeanCrawlRTTms        float64 `json:"mean_crawl_rtt_ms"`
	MeanCrawlHostAllRTTms float64 `json:"mean_crawl_host_all_rtt_ms"`
	CheckPages            int64   `json:"check_pages"`
	// MeanCrawlNearestRTTms is, over the same crawls' pages, the round
	// trip from each page's host to the client nearest it: the least any
	// placement gives. MeanCrawlNamedRTTms is the round trip to the
	// member the manager's measurement named nearest (channels.Located),
	// over the pages of the hosts it named a client for. Between the
	// three, what measuring lost and what routing and sharing lost.
	MeanCrawlNearestRTTms float64 `json:"mean_crawl_nearest_rtt_ms"`
	MeanCrawlNamedRTTms   float64 `json:"mean_crawl_named_rtt_ms"`
	// Placement is how the manager placed hosts and peers: "coordinates"
	// (each at its network coordinate, the default), "hashed points" (CAN
	// at hashes of names) or "consistent hashing" (the baseline).
	Placement string `json:"placement"`
	// MaxClientsPerHost is the most distinct requester IPs any host had
	// connections from at once (fixture.Stats.MaxClients). Every volunteer
	// has an address of its own, so 1 means never two volunteers on one
	// host at once; one volunteer's several connections count 1 (see
	// MaxConnsPerHost).
	MaxClientsPerHost int64 `json:"max_clients_per_host"`

	// What Hivecrawl promises every site, measured from the web's side:
	// at most one connection at a time, one request at a time, and the
	// operator's politeness wait between requests. Each names the host
	// where it was worst ("" when none counts).

	// MaxConnsPerHost is the most connections any host had in use at
	// once (fixture.Stats.MaxConns: a connection is in use from the start
	// of its first request to the end of the response to its last, idle
	// stretches between included), on MaxConnsHost.
	MaxConnsPerHost int64  `json:"max_conns_per_host"`
	MaxConnsHost    string `json:"max_conns_host,omitempty"`
	// MaxInFlightPerHost is the most requests any host answered at once,
	// on MaxInFlightHost.
	MaxInFlightPerHost int64  `json:"max_in_flight_per_host"`
	MaxInFlightHost    string `json:"max_in_flight_host,omitempty"`
	// MinGapMs is the shortest time, in milliseconds (to the
	// microsecond), between the starts of two consecutive requests to any
	// host (from anyone, robots.txt included), on MinGapHost, between the
	// requests MinGapAt describes; nil (left out) when no host had two
	// requests.
	MinGapMs   *float64 `json:"min_gap_ms,omitempty"`
	MinGapHost string   `json:"min_gap_host,omitempty"`
	MinGapAt   string   `json:"min_gap_at,omitempty"`
	// TasksPerPeer are the results stored per peer (receipts).
	TasksPerPeer map[string]int `json:"tasks_per_peer"`
	// TasksCV is the coefficient of variation of TasksPerPeer over all
	// clients (a client with none counts as 0).
	TasksCV float64 `json:"tasks_cv"`
	// PagesPerSecond is PagesServed over Seconds.
	PagesPerSecond float64 `json:"pages_per_second"`
	// Validation is what the spot-checks of results did (read after the
	// run from the stopped manager).
	Validation *Validation `json:"validation,omitempty"`
	// NAT is what the volunteers behind NATs got, in a NAT lab.
	NAT *NATSummary `json:"nat,omitempty"`
}

// NATSummary is what the volunteers behind home routers' NATs got in a
// NAT lab, from their own status at the end of the run.
type NATSummary struct {
	// BehindNAT counts the volunteers behind a NAT, by the NAT's kind in
	// ByKind; Members those of them that held a zone of the overlay.
	BehindNAT int            `json:"behind_nat"`
	ByKind    map[string]int `json:"by_kind"`
	Members   int            `json:"members"`
	// Private counts those AutoNAT found unreachable, RelayReserved
	// those announcing an address through a relay.
	Private       int `json:"private"`
	RelayReserved int `json:"relay_reserved"`
	// Direct, HolePunched and Relayed are their open connections to
	// other peers by kind (a connection between two of them counts
	// twice); HolePunches and HolePunchFailures the hole punches they
	// took part in.
	Direct            int `json:"direct"`
	HolePunched       int `json:"hole_punched"`
	Relayed           int `json:"relayed"`
	HolePunches       int `json:"hole_punches"`
	HolePunchFailures int `json:"hole_punch_failures"`
	// PublicHolePunches counts the hole punches public volunteers took
	// part in (none are needed to reach them).
	PublicHolePunches int `json:"public_hole_punches"`
}

// Observe fills what the running processes can tell: the manager's
// status and the web's counters.
func (s *Swarm) Observe(ctx context.Context, sum *Summary, elapsed time.Duration) error {
	st, err := s.Manager.Status(ctx)
	if err != nil {
		return err
	}
	web, err := s.Web.Stats(ctx, s.http)
	if err != nil {
		return err
	}
	s.fill(sum, st, web, elapsed)
	s.web = web
	if s.cfg.Hijackers > 0 {
		h, err := s.hijackSummary(ctx, st)
		if err != nil {
			return err
		}
		sum.Hijack = h
	}
	if s.lab != nil {
		n, err := s.natSummary(ctx)
		if err != nil {
			return err
		}
		sum.NAT = n
	}
	return nil
}

// natSummary asks every running client how it reaches the others.
func (s *Swarm) natSummary(ctx context.Context) (*NATSummary, error) {
	n := &NATSummary{ByKind: map[string]int{}}
	for _, c := range s.Clients {
		if !c.Running() {
			continue
		}
		st, err := c.Status(ctx)
		if err != nil {
			return nil, err
		}
		if st.Overlay == nil {
			return nil, fmt.Errorf("%s: no overlay in its status", c.Name)
		}
		o := st.Overlay
		if c.NAT == "" {
			n.PublicHolePunches += o.NAT.HolePunches
			continue
		}
		n.BehindNAT++
		n.ByKind[c.NAT]++
		if o.Member {
			n.Members++
		}
		if o.NAT.Reachability == "private" {
			n.Private++
		}
		if o.NAT.RelayAddrs > 0 {
			n.RelayReserved++
		}
		n.Direct += o.NAT.Direct
		n.HolePunched += o.NAT.HolePunched
		n.Relayed += o.NAT.Relayed
		n.HolePunches += o.NAT.HolePunches
		n.HolePunchFailures += o.NAT.HolePunchFailures
	}
	return n, nil
}

func (s *Swarm) fill(sum *Summary, st operator.Status, web map[string]fixture.Stats, elapsed time.Duration) {
	sum.Peers, sum.Hosts, sum.Seconds = len(s.Clients), len(s.Web.Hosts), elapsed.Seconds()
	sum.Channels, sum.PagesStored, sum.Tasks, sum.Sent = st.Channels, st.Stored.Pages, st.Tasks, st.Sent
	sum.Completed, sum.Lost = st.Tasks[channels.TaskDone], st.Tasks[channels.TaskFailed]
	sum.CancelledBy = st.Cancelled
	sum.TasksPerPeer = map[string]int{}
	for _, c := range st.Contributors {
		sum.TasksPerPeer[c.Peer] = c.Receipts
	}
	counts := make([]float64, 0, len(s.Clients))
	for _, c := range st.Contributors {
		counts = append(counts, float64(c.Receipts))
	}
	for len(counts) < len(s.Clients) {
		counts = append(counts, 0)
	}
	sum.TasksCV = CV(counts)
	worst := fixture.WorstOf(web)
	sum.MaxClientsPerHost = worst.MaxClients
	sum.MaxConnsPerHost, sum.MaxConnsHost = worst.MaxConns, worst.MaxConnsHost
	sum.MaxInFlightPerHost, sum.MaxInFlightHost = worst.MaxInFlight, worst.MaxInFlightHost
	sum.MinGapMs, sum.MinGapHost, sum.MinGapAt = nil, worst.MinGapHost, worst.MinGapAt
	if worst.MinGapHost != "" {
		ms := math.Round(float64(worst.MinGap)/float64(time.Microsecond)) / 1000
		sum.MinGapMs = &ms
	}
	sum.Placement = PlacementOf(st.Swarm)
	pages, rtt, all := s.roundTrips(web, func(string, string) bool { return true })
	sum.PagesServed = pages
	sum.MeanRTTms, sum.MeanHostAllRTTms = rtt, all
	if sum.Seconds > 0 {
		sum.PagesPerSecond = math.Round(float64(pages)/sum.Seconds*100) / 100
	}
}

// PlacementOf names how the manager whose swarm view this is places
// hosts and peers: consistent hashing, or the CAN with points at the
// network coordinates (bounds set) or at hashes of names.
func PlacementOf(sw operator.Swarm) string {
	switch {
	case sw.Assignment == manager.AssignHash:
		return "consistent hashing"
	case sw.Bounds == nil:
		return "hashed points"
	}
	return "coordinates"
}

func portOf(addr string) string {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[i+1:]
		}
	}
	return ""
}

// CV returns the coefficient of variation of xs (population standard
// deviation over the mean), to three decimals; 0 when xs is empty or its
// mean is 0.
func CV(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if mean == 0 {
		return 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Round(math.Sqrt(ss/float64(len(xs)))/mean*1000) / 1000
}

// ChannelReport reads the stopped manager's channel database.
type ChannelReport struct {
	Channels []channels.Channel
	Tasks    map[string]int
	// Cancelled counts cancelled tasks by reason.
	Cancelled map[string]int
	// Open are the tasks still open; Held the tasks of every round and
	// state some peer held or delivered.
	Open []channels.Task
	Held []channels.Task
	// Located are the coordinates the manager stored for the hosts of
	// the held tasks, by the tasks' host:port.
	Located map[string]channels.Located
}

// ReadChannels opens the manager's channel database; the manager must be
// stopped (bbolt allows one process at a time).
func (m *Manager) ReadChannels() (ChannelReport, error) {
	db, err := channels.Open(filepath.Join(m.Dir(), manager.ChannelsFile), channels.Options{})
	if err != nil {
		return ChannelReport{}, fmt.Errorf("read the manager's channels: %w", err)
	}
	defer db.Close()
	all, err := db.All(0)
	if err != nil {
		return ChannelReport{}, err
	}
	ts, err := db.Stats()
	if err != nil {
		return ChannelReport{}, err
	}
	open, err := db.Open()
	if err != nil {
		return ChannelReport{}, err
	}
	held, err := db.Tasks(func(t channels.Task) bool { return t.Peer != "" || t.Holder != "" })
	if err != nil {
		return ChannelReport{}, err
	}
	located, asked := map[string]channels.Located{}, map[string]bool{}
	for _, t := range held {
		if asked[t.Host] {
			continue
		}
		asked[t.Host] = true
		l, found, err := db.GetLocated(t.Host)
		if err != nil {
			return ChannelReport{}, err
		}
		if found {
			located[t.Host] = l
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Index < all[j].Index })
	return ChannelReport{Channels: all, Tasks: ts.Counts, Cancelled: ts.Cancelled, Open: open, Held: held, Located: located}, nil
}

// AddChannels completes sum from the stopped manager's database.
func (r ChannelReport) AddChannels(sum *Summary) {
	sum.Channels, sum.ChannelsCrawled, sum.Reexecuted = len(r.Channels), 0, 0
	for _, c := range r.Channels {
		if c.Updates > 0 {
			sum.ChannelsCrawled++
		}
		if c.Failures > 0 && c.Updates > 0 {
			sum.Reexecuted++
		}
	}
	sum.Tasks, sum.CancelledBy = r.Tasks, r.Cancelled
	sum.Completed, sum.Lost = r.Tasks[channels.TaskDone], r.Tasks[channels.TaskFailed]
}

// HijackSummary is what the demo's zone hijackers (testkit/hijack) tried and
// got.
type HijackSummary struct {
	Hijackers int `json:"hijackers"`
	// Forged, Tampered and Replayed count the certificates they sent in
	// heartbeats; Reports the reports of a silent neighbour made right
	// after it answered, ReportsTaken those the manager acted on although
	// the neighbour still answered after, ReportsOfGone those it acted on
	// whose neighbour had died meanwhile (true reports).
	Forged        int64 `json:"certificates_forged"`
	Tampered      int64 `json:"certificates_tampered"`
	Replayed      int64 `json:"certificates_replayed"`
	Reports       int64 `json:"false_reports"`
	ReportsTaken  int64 `json:"false_reports_taken"`
	ReportsOfGone int64 `json:"reports_of_peers_gone"`
	// ZonesHeld counts the zones an honest client believed a hijacker
	// held that the manager's map did not give it; ZonesGranted the
	// zones the map gave the hijackers, as members.
	ZonesHeld    int `json:"zones_held_beyond_grant"`
	ZonesGranted int `json:"zones_granted"`
	// TasksRouted counts the tasks the hijackers queued as owners of
	// their targets: each of those targets lies in a zone the manager
	// granted them, so it is their share as members, not a theft.
	TasksRouted int64 `json:"tasks_queued_as_owner"`
}

// hijackSummary reads the hijackers' counts and compares what every
// running honest client believes they hold with the manager's map.
func (s *Swarm) hijackSummary(ctx context.Context, st operator.Status) (*HijackSummary, error) {
	h := &HijackSummary{}
	granted := map[string][]localapi.Zone{}
	for _, p := range st.Swarm.Peers {
		for _, z := range p.Zones {
			granted[p.ID] = append(granted[p.ID], localapi.Zone{Lo: z.Lo, Hi: z.Hi})
		}
	}
	hijackers := map[string]bool{}
	for _, c := range s.Clients {
		if !c.Hijack {
			continue
		}
		h.Hijackers++
		if n, err := adversary.ReadHijack(homeDirs(c.Home).Data); err == nil {
			h.Forged += n.Forged
			h.Tampered += n.Tampered
			h.Replayed += n.Replayed
			h.Reports += n.Reports
			h.ReportsTaken += n.ReportsTaken
			h.ReportsOfGone += n.ReportsOfGone
		}
		if !c.Running() {
			continue
		}
		st, err := c.Status(ctx)
		if err != nil || st.Overlay == nil {
			continue
		}
		hijackers[st.Overlay.Peer] = true
		h.ZonesGranted += len(granted[st.Overlay.Peer])
		h.TasksRouted += st.Overlay.Accepted
	}
	for _, c := range s.Clients {
		if c.Hijack || !c.Running() {
			continue
		}
		st, err := c.Status(ctx)
		if err != nil || st.Overlay == nil {
			continue
		}
		for _, nb := range st.Overlay.Neighbours {
			if !hijackers[nb.Peer] {
				continue
			}
			for _, z := range nb.Zones {
				if !slices.ContainsFunc(granted[nb.Peer], func(g localapi.Zone) bool { return slices.Equal(g.Lo, z.Lo) && slices.Equal(g.Hi, z.Hi) }) {
					h.ZonesHeld++
				}
			}
		}
	}
	return h, nil
}
