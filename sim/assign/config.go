// Package assign reproduces paper 002 §5.3: 1,600 web hosts assigned to up
// to 140 churning crawlers by five schemes — identifier-seeded consistent
// hashing (p2p/hashring, the UbiCrawler baseline of paper 004, "DHT"), the
// CAN owner of the host's network-coordinate point (p2p/can, "NC-CAN"), NC-CAN
// with load balancing on insert (can.DecideInsert, TTL 3, OT 11, "LBI"), LBI
// over hosts split into pieces (sched/pieces, "LBI-split") and LBI whose
// forwarding target weighs load and distance to the host ("LBI-RTT").
//
// # Model
//
// One step is 20 s. 70 % of the crawlers join at step 0, the rest arrive
// Poisson(0.1) per step; each lives N(1000, 200) steps, then leaves with
// notice (half of them: tasks migrate to whoever takes the host over and
// are re-executed there) or fails (tasks lost), and rejoins after
// N(600, 200). Every host (or piece) is submitted in the first 10 steps and
// again every 500; a task queued longer than 500 steps is cancelled. A
// crawler runs at most CL = 5 tasks; a task takes pages × (RTT + page /
// 1 Mb/s + 100 ms). Host page counts are lognormal (σ = 2, heavy-tailed as
// paper 002's Fig. 14) scaled to the paper's total of 15,187,511 pages
// (design.md §9: the distribution itself is lost).
//
// LBI-RTT is local to the simulator: paper 002 only names it. When
// can.DecideInsert decides to forward, LBI-RTT forwards instead to the
// less-loaded neighbour that minimises RPL/RPL_self + distance/zone
// diagonal to the host's point.
//
// Switches off in Paper() and measured by the assignment benchmark
// (assignbench, `scripts/bench.sh assign`): the CAN box trained from the
// hosts' coordinates or with another trim, one connection per host
// (paper 002 §5.3's rule, which the default run does not enforce: a host
// resubmitted while still being crawled runs beside itself), load-aware
// joins, and a uniform RTT scale.
//
// Splitting: a host of p pages gets n = 1 (p < 1,000), 2 (< 10,000),
// 3 (< 100,000) or 4 pieces, cut by pieces.Split from synthetic
// first-level directories (Zipf-sized, so that about a fifth of them hold
// 90 % of the pages, paper 002 §5.2).
package assign

import "fmt"

// Scheme is an assignment scheme.
type Scheme string

// The schemes compared.
const (
	DHT      Scheme = "DHT"
	NCCAN    Scheme = "NC-CAN"
	LBI      Scheme = "LBI"
	LBISplit Scheme = "LBI-split"
	LBIRTT   Scheme = "LBI-RTT"
)

// Schemes lists them in the order results show.
var Schemes = []Scheme{DHT, NCCAN, LBI, LBISplit, LBIRTT}

// Config is one experiment's set-up.
type Config struct {
	Hosts, Crawlers, Steps int
	// StepSeconds is the length of a step.
	StepSeconds float64
	// InitialShare of crawlers join at step 0; the rest arrive at
	// ArrivalRate per step.
	InitialShare, ArrivalRate float64
	LifetimeMean, LifetimeSD  float64
	RejoinMean, RejoinSD      float64
	// LeaveShare of departures give notice.
	LeaveShare float64
	// Resubmit is the resubmission period and the queue time limit.
	Resubmit int
	// CL is the crawler's concurrent tasks; OT the overloading threshold
	// in tasks; TTL LBI's forwarding limit.
	CL, OT, TTL int
	// BandwidthMbps is each connection's download rate.
	BandwidthMbps float64
	PageBytes     float64
	PoliteSeconds float64
	// TotalPages is the sum of the hosts' page counts; PagesSigma the
	// lognormal's σ.
	TotalPages float64
	PagesSigma float64
	// Sample is the width in steps of the time series' windows.
	Sample int
	// ScaleSizes are the crawler counts of the scalability run (Fig. 22).
	ScaleSizes []int

	// The switches below are off in Paper(); the assignment benchmark
	// (bench/assignbench) turns them on one at a time to measure
	// what each does.

	// BoxFromHosts and Trim choose how the CAN box is trained (see
	// world.Config).
	BoxFromHosts bool
	Trim         float64
	// OneConnection keeps paper 002 §5.3's "at most one TCP connection to
	// each Web host (piece)": a unit still being crawled when it is due
	// again is not resubmitted (Result.Skipped counts these). Off, a
	// resubmitted unit may run beside its unfinished previous task.
	OneConnection bool
	// LoadJoin makes a joining crawler split the most loaded zone near its
	// point instead of the one holding it (see joinPoint); every scheme
	// but DHT.
	LoadJoin bool
	// RTTScale multiplies every crawler–host RTT in the task time (not in
	// placement, which a uniform scale leaves unchanged). 0 = 1.
	RTTScale float64
}

// Paper returns paper 002 §5.3's set-up.
func Paper() Config {
	return Config{
		Hosts: 1600, Crawlers: 140, Steps: 10000, StepSeconds: 20,
		InitialShare: 0.7, ArrivalRate: 0.1,
		LifetimeMean: 1000, LifetimeSD: 200, RejoinMean: 600, RejoinSD: 200,
		LeaveShare: 0.5, Resubmit: 500, CL: 5, OT: 11, TTL: 3,
		BandwidthMbps: 1, PageBytes: 10 * 1024, PoliteSeconds: 0.1,
		TotalPages: 15187511, PagesSigma: 2, Sample: 50,
		ScaleSizes: []int{20, 40, 60, 80, 100, 120, 140},
	}
}

// Shrink scales hosts, crawlers and steps by f, for tests.
func (c Config) Shrink(f float64) Config {
	c.Hosts = max(40, int(float64(c.Hosts)*f))
	c.Crawlers = max(8, int(float64(c.Crawlers)*f))
	c.TotalPages *= float64(c.Hosts) / 1600
	c.Steps = max(1500, int(float64(c.Steps)*f))
	c.ScaleSizes = []int{max(4, c.Crawlers/2), c.Crawlers}
	return c
}

// pageSeconds is the time one page takes over a connection with an RTT
// of rtt ms (paper 002 §5.3): RTT + page / bandwidth + politeness wait.
func (c Config) pageSeconds(rtt float64) float64 {
	return rtt/1000 + c.PageBytes*8/(c.BandwidthMbps*1e6) + c.PoliteSeconds
}

func (c Config) validate() error {
	if c.Hosts < 1 || c.Crawlers < 2 || c.Steps < 1 || c.CL < 1 || c.Sample < 1 || c.Resubmit < 1 || c.RTTScale < 0 || c.Trim < 0 || c.Trim >= 50 {
		return fmt.Errorf("assignment sim: bad config %+v", c)
	}
	return nil
}
