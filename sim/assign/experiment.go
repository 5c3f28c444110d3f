package assign

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/hivecrawl/hivecrawl/sim/plot"
)

// Experiment holds the main runs and the scalability runs.
type Experiment struct {
	Scenario *Scenario
	Main     []*Result
	// Scale[i][j] is Schemes[i] with Config.ScaleSizes[j] crawlers.
	Scale [][]*Result
}

// RunExperiment runs every scheme at full size and at each scalability
// size, in parallel; each run is deterministic on its own.
func RunExperiment(cfg Config, seed uint64) (*Experiment, error) {
	sc, err := NewScenario(cfg, seed)
	if err != nil {
		return nil, err
	}
	x := &Experiment{Scenario: sc, Main: make([]*Result, len(Schemes)), Scale: make([][]*Result, len(Schemes))}
	var jobs []job
	for i, s := range Schemes {
		jobs = append(jobs, job{&x.Main[i], s, 0})
		x.Scale[i] = make([]*Result, len(cfg.ScaleSizes))
		for j, n := range cfg.ScaleSizes {
			jobs = append(jobs, job{&x.Scale[i][j], s, n})
		}
	}
	if err := sc.runAll(jobs); err != nil {
		return nil, err
	}
	return x, nil
}

// job is one run of runAll: scheme with the first limit crawlers (0 =
// all), its result stored in out.
type job struct {
	out   **Result
	s     Scheme
	limit int
}

// runAll runs jobs in parallel, at most GOMAXPROCS at once.
func (s *Scenario) runAll(jobs []job) error {
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			*j.out, errs[i] = s.Run(j.s, j.limit)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("assignment sim %s with %d crawlers: %w", jobs[i].s, jobs[i].limit, err)
		}
	}
	return nil
}

type metric struct {
	file, title, y string
	f              func(Sample) float64
}

var metrics = []metric{
	{"fig15-rate.svg", "Aggregated download rate (Fig. 15)", "Mb/s", func(s Sample) float64 { return s.Rate }},
	{"fig16-rtt.svg", "Mean crawler–host RTT/2 of executing tasks (Fig. 16)", "ms", func(s Sample) float64 { return s.HalfRTT }},
	{"fig17a-executing.svg", "Executing tasks (Fig. 17a)", "tasks", func(s Sample) float64 { return s.Executing }},
	{"fig17b-executing-pages.svg", "Executing workload (Fig. 17b)", "pages", func(s Sample) float64 { return s.ExecutingPages }},
	{"fig18a-queued.svg", "Queued tasks (Fig. 18a)", "tasks", func(s Sample) float64 { return s.Queued }},
	{"fig18b-queued-pages.svg", "Queued workload (Fig. 18b)", "pages", func(s Sample) float64 { return s.QueuedPages }},
	{"fig19a-cv-all.svg", "Load variation, all tasks (Fig. 19a)", "coefficient of variation", func(s Sample) float64 { return s.CVAll }},
	{"fig19b-cv-executing.svg", "Load variation, executing tasks (Fig. 19b)", "coefficient of variation", func(s Sample) float64 { return s.CVExecuting }},
	{"fig20a-migrated.svg", "Migrated tasks, cumulative (Fig. 20a)", "tasks", func(s Sample) float64 { return s.Migrated }},
	{"fig20b-migrated-pages.svg", "Migrated workload, cumulative (Fig. 20b)", "pages", func(s Sample) float64 { return s.MigratedPages }},
	{"online.svg", "Crawlers online", "crawlers", func(s Sample) float64 { return s.Online }},
}

// Write stores CSV files and charts in dir and returns the summary body.
func (x *Experiment) Write(dir string) (string, error) {
	cfg := x.Scenario.Config
	var rows [][]string
	for _, r := range x.Main {
		for _, s := range r.Series {
			rows = append(rows, []string{string(r.Scheme), strconv.Itoa(s.Step), plot.F(s.Rate), plot.F(s.HalfRTT), plot.F(s.Executing), plot.F(s.ExecutingPages),
				plot.F(s.Queued), plot.F(s.QueuedPages), plot.F(s.CVAll), plot.F(s.CVExecuting), plot.F(s.Migrated), plot.F(s.MigratedPages), plot.F(s.Online)})
		}
	}
	if err := plot.WriteCSV(filepath.Join(dir, "series.csv"), []string{"scheme", "step", "rate_mbps", "half_rtt_ms", "executing", "executing_pages", "queued", "queued_pages", "cv_all", "cv_executing", "migrated", "migrated_pages", "online"}, rows); err != nil {
		return "", err
	}
	for _, m := range metrics {
		ch := plot.Chart{Title: m.title, XLabel: "step (20 s)", YLabel: m.y}
		for _, r := range x.Main {
			s := plot.Series{Name: string(r.Scheme)}
			for _, v := range r.Series {
				s.X = append(s.X, float64(v.Step))
				s.Y = append(s.Y, m.f(v))
			}
			ch.Series = append(ch.Series, s)
		}
		if err := ch.WriteSVG(filepath.Join(dir, m.file)); err != nil {
			return "", err
		}
	}
	cdf := plot.Chart{Title: "Recrawls per host, CDF (Fig. 21)", XLabel: "completed crawls per host", YLabel: "share of hosts", Step: true}
	rows = rows[:0]
	for _, r := range x.Main {
		s := plot.Series{Name: string(r.Scheme)}
		for i, v := range r.Recrawls {
			s.X = append(s.X, v)
			s.Y = append(s.Y, float64(i+1)/float64(len(r.Recrawls)))
			rows = append(rows, []string{string(r.Scheme), strconv.Itoa(i), plot.F(v)})
		}
		cdf.Series = append(cdf.Series, s)
	}
	if err := cdf.WriteSVG(filepath.Join(dir, "fig21-recrawls-cdf.svg")); err != nil {
		return "", err
	}
	if err := plot.WriteCSV(filepath.Join(dir, "recrawls.csv"), []string{"scheme", "host_rank", "recrawls"}, rows); err != nil {
		return "", err
	}
	total := plot.Chart{Title: "Scalability: system throughput (Fig. 22a)", XLabel: "crawlers", YLabel: "Mb/s"}
	single := plot.Chart{Title: "Scalability: throughput per online crawler (Fig. 22b)", XLabel: "crawlers", YLabel: "Mb/s"}
	rows = rows[:0]
	for i, s := range Schemes {
		a, b := plot.Series{Name: string(s)}, plot.Series{Name: string(s)}
		for j, n := range cfg.ScaleSizes {
			r := x.Scale[i][j]
			a.X, a.Y = append(a.X, float64(n)), append(a.Y, r.MeanRate())
			b.X, b.Y = append(b.X, float64(n)), append(b.Y, r.MeanRate()/max(1, r.MeanOnline()))
			rows = append(rows, []string{string(s), strconv.Itoa(n), plot.F(r.MeanRate()), plot.F(r.MeanOnline()), plot.F(r.MeanRate() / max(1, r.MeanOnline()))})
		}
		total.Series, single.Series = append(total.Series, a), append(single.Series, b)
	}
	if err := total.WriteSVG(filepath.Join(dir, "fig22a-throughput.svg")); err != nil {
		return "", err
	}
	if err := single.WriteSVG(filepath.Join(dir, "fig22b-per-crawler.svg")); err != nil {
		return "", err
	}
	if err := plot.WriteCSV(filepath.Join(dir, "scalability.csv"), []string{"scheme", "crawlers", "rate_mbps", "mean_online", "rate_per_online_crawler_mbps"}, rows); err != nil {
		return "", err
	}
	data, err := x.writeDataset(dir)
	if err != nil {
		return "", err
	}
	return x.summary() + data, nil
}

func (x *Experiment) summary() string {
	cfg := x.Scenario.Config
	var b strings.Builder
	total := 0
	for _, p := range x.Scenario.Pages {
		total += p
	}
	fmt.Fprintf(&b, "Paper 002 §5.3: %d hosts (%d pages in all, lognormal σ = %g scaled to the paper's total; %d pieces when split), %d crawlers, %d steps of %g s, CL %d, OT %d, TTL %d, %g Mb/s per connection, politeness wait %g ms. See sim/assign's package documentation for the model.\n\n",
		cfg.Hosts, total, cfg.PagesSigma, len(x.Scenario.Split), cfg.Crawlers, cfg.Steps, cfg.StepSeconds, cfg.CL, cfg.OT, cfg.TTL, cfg.BandwidthMbps, cfg.PoliteSeconds*1000)
	b.WriteString("### Run means (Figs 15–21)\n\n| scheme | download rate Mb/s | vs DHT | RTT/2 ms | executing | queued | CV all | CV executing | migrated tasks | migrated pages | completed | cancelled | lost | hosts > 10 recrawls | hosts > 15 recrawls | fewest recrawls |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	dht := x.Main[0]
	for _, r := range x.Main {
		last := r.Series[len(r.Series)-1]
		fmt.Fprintf(&b, "| %s | %.0f | %+.0f %% | %.1f | %.0f | %.0f | %.2f | %.2f | %.0f | %.3g | %d | %d | %d | %.0f %% | %.0f %% | %.1f |\n", r.Scheme, r.MeanRate(), 100*(r.MeanRate()/dht.MeanRate()-1),
			r.mean(func(s Sample) float64 { return s.HalfRTT }), r.mean(func(s Sample) float64 { return s.Executing }), r.mean(func(s Sample) float64 { return s.Queued }),
			r.mean(func(s Sample) float64 { return s.CVAll }), r.mean(func(s Sample) float64 { return s.CVExecuting }), last.Migrated, last.MigratedPages,
			r.Completed, r.Cancelled, r.Lost, 100*r.ShareAbove(10), 100*r.ShareAbove(15), r.Recrawls[0])
	}
	b.WriteString("\nFigures: [download rate](fig15-rate.svg), [RTT/2](fig16-rtt.svg), [executing tasks](fig17a-executing.svg) and [pages](fig17b-executing-pages.svg), [queued tasks](fig18a-queued.svg) and [pages](fig18b-queued-pages.svg), [load variation, all](fig19a-cv-all.svg) and [executing](fig19b-cv-executing.svg), [migrated tasks](fig20a-migrated.svg) and [pages](fig20b-migrated-pages.svg), [recrawls per host CDF](fig21-recrawls-cdf.svg), [crawlers online](online.svg); data in `series.csv` and `recrawls.csv`.\n\n")
	b.WriteString("### Scalability (Fig. 22)\n\n| scheme |")
	for _, n := range cfg.ScaleSizes {
		fmt.Fprintf(&b, " %d |", n)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(cfg.ScaleSizes)) + "\n")
	for i, s := range Schemes {
		fmt.Fprintf(&b, "| %s (total / per online crawler, Mb/s) |", s)
		for j := range cfg.ScaleSizes {
			r := x.Scale[i][j]
			fmt.Fprintf(&b, " %.0f / %.2f |", r.MeanRate(), r.MeanRate()/max(1, r.MeanOnline()))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nFigures: [throughput](fig22a-throughput.svg), [per crawler](fig22b-per-crawler.svg); data in `scalability.csv`.\n\n")
	b.WriteString(x.comparison())
	return b.String()
}

func (x *Experiment) comparison() string {
	by := map[Scheme]*Result{}
	for _, r := range x.Main {
		by[r.Scheme] = r
	}
	rate := func(s Scheme) float64 { return by[s].MeanRate() }
	rtt := func(s Scheme) float64 { return by[s].mean(func(v Sample) float64 { return v.HalfRTT }) }
	cvAll := func(s Scheme) float64 { return by[s].mean(func(v Sample) float64 { return v.CVAll }) }
	var b strings.Builder
	b.WriteString("### Against the paper's findings\n\n")
	check := func(ok bool, claim string) {
		mark := "holds"
		if !ok {
			mark = "does not hold"
		}
		fmt.Fprintf(&b, "- %s: %s.\n", claim, mark)
	}
	check(rate(NCCAN) > rate(DHT), fmt.Sprintf("NC-CAN beats DHT's download rate (paper +27 %%, ours %+.0f %%)", 100*(rate(NCCAN)/rate(DHT)-1)))
	check(rate(LBI) > rate(NCCAN) && rate(LBISplit) > rate(NCCAN), fmt.Sprintf("LBI and LBI-split beat NC-CAN (paper: over +43 %% against DHT; ours LBI %+.0f %%, LBI-split %+.0f %% against DHT)", 100*(rate(LBI)/rate(DHT)-1), 100*(rate(LBISplit)/rate(DHT)-1)))
	check(rate(LBISplit) > rate(LBI), fmt.Sprintf("LBI-split beats LBI (paper +10 %%, ours %+.0f %%)", 100*(rate(LBISplit)/rate(LBI)-1)))
	check(rtt(DHT) > rtt(NCCAN) && rtt(LBI) > rtt(NCCAN), fmt.Sprintf("DHT has the highest RTT/2 and LBI a higher one than NC-CAN (ours DHT %.1f, NC-CAN %.1f, LBI %.1f ms)", rtt(DHT), rtt(NCCAN), rtt(LBI)))
	check(rtt(LBIRTT) < rtt(LBI), fmt.Sprintf("weighing RTT lowers LBI's RTT/2 (ours %.1f against %.1f ms)", rtt(LBIRTT), rtt(LBI)))
	check(cvAll(NCCAN) > cvAll(DHT) && cvAll(DHT) > cvAll(LBI) && cvAll(LBI) > cvAll(LBISplit), fmt.Sprintf("load variation NC-CAN > DHT > LBI > LBI-split (ours %.2f, %.2f, %.2f, %.2f)", cvAll(NCCAN), cvAll(DHT), cvAll(LBI), cvAll(LBISplit)))
	check(by[LBI].ShareAbove(15) >= 0.9 && by[LBISplit].ShareAbove(15) >= 0.9, fmt.Sprintf("over 90 %% of hosts are recrawled more than 15 times under LBI and LBI-split (ours %.0f %% and %.0f %%)", 100*by[LBI].ShareAbove(15), 100*by[LBISplit].ShareAbove(15)))
	check(by[NCCAN].ShareAbove(10) >= 0.5, fmt.Sprintf("over 50 %% of hosts are recrawled more than 10 times under NC-CAN (ours %.0f %%)", 100*by[NCCAN].ShareAbove(10)))
	return b.String()
}
