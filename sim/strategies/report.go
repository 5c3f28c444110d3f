package strategies

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hivecrawl/hivecrawl/sim/plot"
)

// Write stores the experiment's CSV files and SVG charts in dir and
// returns its Markdown summary. fig names the paper's figure of the time
// series ("fig4" for REC, "fig5" for RUC).
func (x *Experiment) Write(dir, fig string) (string, error) {
	cfg := x.Scenario.Config
	k := len(cfg.GroupShares)
	var rows [][]string
	for _, r := range x.Results {
		for p, g := range r.Groups {
			pt, pi := "", ""
			if pc, ok := paper[cfg.Name]; ok && pc.Tasks[r.Kind] != nil {
				pt = plot.F(pc.Tasks[r.Kind][p] * 1e6 * x.scale())
				pi = plot.F(pc.Intervals[r.Kind][p])
			}
			rows = append(rows, []string{cfg.Name, string(r.Kind), strconv.Itoa(k - 1 - p), strconv.Itoa(g.Submitted), pt,
				plot.F(g.MeanInterval), pi, strconv.Itoa(g.Updates), strconv.Itoa(g.Expired), strconv.Itoa(g.Refused), strconv.Itoa(g.Lost)})
		}
	}
	if err := plot.WriteCSV(filepath.Join(dir, "tasks.csv"), []string{"case", "strategy", "rank", "tasks", "paper_tasks", "mean_interval_steps", "paper_interval_steps", "updates", "expired", "refused", "lost"}, rows); err != nil {
		return "", err
	}
	rows = rows[:0]
	for _, r := range x.Results {
		for _, s := range r.Series {
			iv := make([]string, len(s.Intervals))
			for i, v := range s.Intervals {
				iv[i] = plot.F(v)
			}
			rows = append(rows, []string{string(r.Kind), strconv.Itoa(s.Step), plot.F(s.Online), plot.F(s.Queued), plot.F(s.Running), plot.F(s.Throughput), strings.Join(iv, " ")})
		}
	}
	if err := plot.WriteCSV(filepath.Join(dir, "series.csv"), []string{"strategy", "step", "online", "queued", "running", "throughput_mbps", "group_intervals_steps"}, rows); err != nil {
		return "", err
	}
	charts := []struct {
		file, title, y string
		f              func(Sample) float64
	}{
		{fig + "-queued.svg", cfg.Name + ": queued tasks", "tasks in queues", func(s Sample) float64 { return s.Queued }},
		{fig + "-throughput.svg", cfg.Name + ": throughput", "Mb/s", func(s Sample) float64 { return s.Throughput }},
		{"intervals-fastest.svg", cfg.Name + ": interval of the 60-min group", "steps", func(s Sample) float64 { return s.Intervals[0] }},
		{"online.svg", cfg.Name + ": crawlers online", "crawlers", func(s Sample) float64 { return s.Online }},
	}
	for _, c := range charts {
		ch := plot.Chart{Title: c.title, XLabel: "step (minutes)", YLabel: c.y}
		for _, r := range x.Results {
			s := plot.Series{Name: string(r.Kind)}
			for _, v := range r.Series {
				s.X = append(s.X, float64(v.Step))
				s.Y = append(s.Y, c.f(v))
			}
			ch.Series = append(ch.Series, s)
		}
		if err := ch.WriteSVG(filepath.Join(dir, c.file)); err != nil {
			return "", err
		}
	}
	data, err := x.writeDataset(dir)
	if err != nil {
		return "", err
	}
	return x.summary(fig) + data, nil
}

// scale is the share of paper 000's run this one simulates (channels ×
// steps), by which paper task counts are scaled for comparison.
func (x *Experiment) scale() float64 {
	c := x.Scenario.Config
	return float64(c.Channels) / 16000 * float64(c.Steps) / 90000
}

func pct(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.0f %%", (a/b-1)*100)
}

func (x *Experiment) result(k Kind) *Result {
	for _, r := range x.Results {
		if r.Kind == k {
			return r
		}
	}
	return nil
}

func (x *Experiment) summary(fig string) string {
	cfg := x.Scenario.Config
	pc, havePaper := paper[cfg.Name]
	k := len(cfg.GroupShares)
	var b strings.Builder
	table := "1"
	qtable := "2"
	if cfg.Name == "RUC" {
		table, qtable = "3", "4"
	}
	fmt.Fprintf(&b, "## %s: %d channels, %d crawlers, %d steps\n\n", cfg.Name, cfg.Channels, cfg.Crawlers, cfg.Steps)
	fmt.Fprintf(&b, "### Recrawl tasks and mean intervals per rank (paper's Table %s)\n\n", table)
	b.WriteString("Ours, with the paper's figure in brackets (task counts in millions; intervals in steps, time-averaged over the run).\n\n")
	b.WriteString("| rank |")
	for _, r := range x.Results {
		fmt.Fprintf(&b, " %s tasks |", r.Kind)
	}
	for _, r := range x.Results {
		fmt.Fprintf(&b, " %s interval |", r.Kind)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", 2*len(x.Results)) + "\n")
	paperCell := func(m map[Kind][]float64, kind Kind, p int, f string) string {
		if !havePaper || m[kind] == nil {
			return ""
		}
		return " (" + fmt.Sprintf(f, m[kind][p]) + ")"
	}
	for p := range k {
		fmt.Fprintf(&b, "| %d |", k-1-p)
		for _, r := range x.Results {
			fmt.Fprintf(&b, " %.3f%s |", float64(r.Groups[p].Submitted)/1e6, paperCell(pc.Tasks, r.Kind, p, "%.3f"))
		}
		for _, r := range x.Results {
			fmt.Fprintf(&b, " %.0f%s |", r.Groups[p].MeanInterval, paperCell(pc.Intervals, r.Kind, p, "%.0f"))
		}
		b.WriteString("\n")
	}
	b.WriteString("| total / mean |")
	for _, r := range x.Results {
		pt := ""
		if havePaper && pc.Tasks[r.Kind] != nil {
			pt = fmt.Sprintf(" (%.3f)", sum(pc.Tasks[r.Kind]))
		}
		fmt.Fprintf(&b, " %.3f%s |", float64(r.Submitted)/1e6, pt)
	}
	for _, r := range x.Results {
		fmt.Fprintf(&b, " %.0f |", r.MeanInterval(x.counts()))
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "### Update quality (paper's Table %s) and task outcomes\n\n", qtable)
	b.WriteString("| strategy | weighted | unweighted | updates / tasks | expired | lost to crashes | migrated | reassignments | queued per online crawler | busy threads | throughput Mb/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range x.Results {
		pw, pu, pq := "", "", ""
		if havePaper {
			if v, ok := pc.Weighted[r.Kind]; ok {
				pw, pu, pq = fmt.Sprintf(" (%.2f)", v), fmt.Sprintf(" (%.2f)", pc.Unweighted[r.Kind]), fmt.Sprintf(" (%.2g)", pc.Queue[r.Kind])
			}
		}
		queuePer := r.Mean(func(s Sample) float64 { return s.Queued }) / math.Max(1, r.Mean(func(s Sample) float64 { return s.Online }))
		busy := r.Mean(func(s Sample) float64 { return s.Running }) / math.Max(1, r.Mean(func(s Sample) float64 { return s.Online })*float64(cfg.Threads))
		fmt.Fprintf(&b, "| %s | %.2f%s | %.2f%s | %.0f %% | %d | %d | %d | %d | %.2f%s | %.0f %% | %.0f |\n", r.Kind, r.WeightedQuality, pw, r.Quality, pu,
			100*r.SuccessRate(), r.Expired, r.Lost, r.Migrated, r.Reassignments, queuePer, pq, 100*busy, r.Mean(func(s Sample) float64 { return s.Throughput }))
	}
	fmt.Fprintf(&b, "\nFigures: [queued tasks](%s-queued.svg) and [throughput](%s-throughput.svg) over time (paper's Fig. %s), [the fastest group's interval](intervals-fastest.svg), [crawlers online](online.svg); data in `tasks.csv` and `series.csv`.\n\n", fig, fig, strings.TrimPrefix(fig, "fig"))
	if f := x.result(Fixed); f != nil && havePaper {
		b.WriteString("### Against FIXED, ours and the paper's\n\n| strategy | tasks | weighted quality | unweighted quality |\n|---|---:|---:|---:|\n")
		for _, r := range x.Results {
			if r.Kind == Fixed {
				continue
			}
			pt, pw, pu := "", "", ""
			if pc.Tasks[r.Kind] != nil {
				pt = fmt.Sprintf(" (paper %s)", pct(sum(pc.Tasks[r.Kind]), sum(pc.Tasks[Fixed])))
				pw = fmt.Sprintf(" (paper %s)", pct(pc.Weighted[r.Kind], pc.Weighted[Fixed]))
				pu = fmt.Sprintf(" (paper %s)", pct(pc.Unweighted[r.Kind], pc.Unweighted[Fixed]))
			}
			fmt.Fprintf(&b, "| %s | %s%s | %s%s | %s%s |\n", r.Kind, pct(float64(r.Submitted), float64(f.Submitted)), pt,
				pct(r.WeightedQuality, f.WeightedQuality), pw, pct(r.Quality, f.Quality), pu)
		}
		b.WriteString("\n")
		for _, r := range x.Results {
			if r.Kind == Fixed || pc.Tasks[r.Kind] == nil {
				continue
			}
			fmt.Fprintf(&b, "- %s: task count against FIXED %s the paper's direction; weighted quality %s it; unweighted quality %s it.\n", r.Kind,
				agree(float64(r.Submitted)/float64(f.Submitted), sum(pc.Tasks[r.Kind])/sum(pc.Tasks[Fixed])),
				agree(r.WeightedQuality/f.WeightedQuality, pc.Weighted[r.Kind]/pc.Weighted[Fixed]),
				agree(r.Quality/f.Quality, pc.Unweighted[r.Kind]/pc.Unweighted[Fixed]))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// agree says whether two ratios against FIXED move the same way (within
// ±3 % counts as no change).
func agree(ours, theirs float64) string {
	dir := func(v float64) int {
		switch {
		case v > 1.03:
			return 1
		case v < 0.97:
			return -1
		}
		return 0
	}
	if dir(ours) == dir(theirs) {
		return "follows"
	}
	return "does not follow"
}
