// Package webfountain reproduces paper 001 §5 (Experiment 1) with the
// WebFountain planner of sched/fountain: the paper-shaped model
// (255 change-rate buckets, T = 14 periods; fountain.PaperModel documents
// the parameters the paper does not print) solved under its three
// objective weightings, giving Table 3 (objective, pages and obsolete pages
// at the end of the cycle), Fig. 3 (crawls per page per cycle by change
// rate) and Fig. 4 (obsolete pages per period), and Experiment 2 (Table 4,
// Fig. 5: the same planner with pages moved to the fastest and slowest
// buckets). The uniform baseline
// (every page crawled at the same rate) is shown beside them.
package webfountain

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hivecrawl/hivecrawl/sched/fountain"
	"github.com/hivecrawl/hivecrawl/sim/plot"
)

// Strategy is one solved weighting.
type Strategy struct {
	Name string
	Plan fountain.Plan
}

// Result holds the plans of one run.
type Result struct {
	Model      fountain.Model
	Strategies []Strategy
}

// Run solves the paper's model with buckets buckets and periods periods
// under the three weightings and the uniform baseline (weighted as
// strategy 1).
func Run(buckets, periods int) (*Result, error) {
	m := fountain.PaperModel(buckets, periods)
	r := &Result{Model: m}
	for _, s := range []struct {
		name string
		w    fountain.Weights
	}{
		{"Strategy 1 (equal)", fountain.Equal(periods)},
		{"Strategy 2 (last only)", fountain.LastOnly(periods)},
		{"Strategy 3 (last high)", fountain.LastHigh(periods)},
	} {
		p, err := fountain.Solve(m, s.w, fountain.Options{Iterations: 3000, Tolerance: 1e-7})
		if err != nil {
			return nil, fmt.Errorf("webfountain sim %s: %w", s.name, err)
		}
		r.Strategies = append(r.Strategies, Strategy{s.name, p})
	}
	u, err := fountain.Uniform(m, fountain.Equal(periods))
	if err != nil {
		return nil, fmt.Errorf("webfountain sim uniform: %w", err)
	}
	r.Strategies = append(r.Strategies, Strategy{"Uniform (baseline)", u})
	return r, nil
}

// Shares returns the share of pages a plan never crawls in the cycle and
// the share it crawls more than once (below 0.05 and above 1.05 crawls per page).
func Shares(m fountain.Model, p *fountain.Plan) (never, more float64) {
	total := 0.0
	for i, b := range m.Buckets {
		c := p.CrawlsPerPage(i)
		total += b.Pages
		switch {
		case c < 0.05:
			never += b.Pages
		case c > 1.05:
			more += b.Pages
		}
	}
	return never / total, more / total
}

var paperTable3 = [][3]float64{
	{32.592e7, 5.224e8, 3.086e7},
	{1.722e7, 5.184e8, 1.609e7},
	{2.138e7, 5.224e8, 1.702e7},
}

// Write stores CSV files and SVG charts in dir and returns the summary's
// body.
func (r *Result) Write(dir string) (string, error) {
	T := r.Model.Periods
	var rows [][]string
	fig3 := plot.Chart{Title: "Crawls per page per cycle by change rate (Fig. 3)", XLabel: "bucket (0 = fastest-changing)", YLabel: "crawls per page per cycle", YMin: math.NaN()}
	fig4 := plot.Chart{Title: "Obsolete pages per period (Fig. 4)", XLabel: "period", YLabel: "obsolete pages", YMin: math.NaN()}
	for _, s := range r.Strategies {
		s3 := plot.Series{Name: s.Name}
		for i, b := range r.Model.Buckets {
			c := s.Plan.CrawlsPerPage(i)
			s3.X = append(s3.X, float64(i))
			s3.Y = append(s3.Y, c)
			rows = append(rows, []string{s.Name, strconv.Itoa(i), plot.F(b.Change), plot.F(c)})
		}
		fig3.Series = append(fig3.Series, s3)
		s4 := plot.Series{Name: s.Name}
		for t := range T {
			s4.X = append(s4.X, float64(t+1))
			s4.Y = append(s4.Y, s.Plan.ObsoleteAt(t))
		}
		fig4.Series = append(fig4.Series, s4)
	}
	if err := plot.WriteCSV(filepath.Join(dir, "fig3-crawls.csv"), []string{"strategy", "bucket", "change_per_period", "crawls_per_page"}, rows); err != nil {
		return "", err
	}
	rows = rows[:0]
	for _, s := range r.Strategies {
		for t := range T {
			rows = append(rows, []string{s.Name, strconv.Itoa(t + 1), plot.F(s.Plan.ObsoleteAt(t))})
		}
	}
	if err := plot.WriteCSV(filepath.Join(dir, "fig4-obsolete.csv"), []string{"strategy", "period", "obsolete_pages"}, rows); err != nil {
		return "", err
	}
	if err := fig3.WriteSVG(filepath.Join(dir, "fig3-crawls.svg")); err != nil {
		return "", err
	}
	if err := fig4.WriteSVG(filepath.Join(dir, "fig4-obsolete.svg")); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Paper 001 §5, Experiment 1: %d buckets, T = %d periods, the parameters of `fountain.PaperModel` (the paper does not print its own; see that function's documentation), solved by `fountain.Solve` (projected gradient and Frank–Wolfe, where the paper used MINOS).\n\n", len(r.Model.Buckets), T)
	b.WriteString("### Table 3: model statistics (paper's figure in brackets)\n\n| strategy | objective | pages at end | obsolete at end | never crawled | crawled more than once | solver iterations | Frank–Wolfe gap |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for k, s := range r.Strategies {
		never, more := Shares(r.Model, &s.Plan)
		pp := func(j int) string {
			if k < len(paperTable3) {
				return fmt.Sprintf(" (%.4g)", paperTable3[k][j])
			}
			return ""
		}
		fmt.Fprintf(&b, "| %s | %.4g%s | %.4g%s | %.4g%s | %.0f %% | %.0f %% | %d | %.2g |\n", s.Name, s.Plan.Objective, pp(0), s.Plan.TotalPages(), pp(1), s.Plan.ObsoleteAt(T-1), pp(2), 100*never, 100*more, s.Plan.Iterations, s.Plan.Gap)
	}
	b.WriteString("\nThe paper: strategy 1 leaves the slowest-changing 40 % of pages uncrawled and crawls fast pages many times; strategy 2 crawls every page once; strategy 3 crawls every page at least once, the fastest 18 % more than once.\n\n")
	b.WriteString("Figures: [crawls per page by change rate](fig3-crawls.svg) (Fig. 3), [obsolete pages per period](fig4-obsolete.svg) (Fig. 4); data in `fig3-crawls.csv` and `fig4-obsolete.csv`.\n\n")
	b.WriteString(r.comparison())
	v2, err := r.writeVersion2(dir)
	if err != nil {
		return "", err
	}
	b.WriteString("\n" + v2)
	return b.String(), nil
}

// comparison states, from the measured plans, where the paper's findings
// hold.
func (r *Result) comparison() string {
	T := r.Model.Periods
	p := func(k int) *fountain.Plan { return &r.Strategies[k].Plan }
	var b strings.Builder
	b.WriteString("### Against the paper's findings\n\n")
	check := func(ok bool, claim string) {
		mark := "holds"
		if !ok {
			mark = "does not hold"
		}
		fmt.Fprintf(&b, "- %s: %s.\n", claim, mark)
	}
	check(p(1).ObsoleteAt(T-1) <= p(2).ObsoleteAt(T-1) && p(2).ObsoleteAt(T-1) <= p(0).ObsoleteAt(T-1),
		"obsolete pages at the end of the cycle: strategy 2 ≤ strategy 3 ≤ strategy 1")
	fewer := true
	for t := range T - 1 {
		if !(p(0).ObsoleteAt(t) <= p(2).ObsoleteAt(t) && p(2).ObsoleteAt(t) <= p(1).ObsoleteAt(t)) {
			fewer = false
		}
	}
	check(fewer, "in every period but the last, strategy 1 has the fewest obsolete pages, then 3, then 2")
	n1, _ := Shares(r.Model, p(0))
	n2, m2 := Shares(r.Model, p(1))
	n3, m3 := Shares(r.Model, p(2))
	check(n1 > 0.2, fmt.Sprintf("strategy 1 leaves a large share of the slow pages uncrawled (ours %.0f %%, paper 40 %%)", 100*n1))
	check(n2+m2 < 0.1, fmt.Sprintf("strategy 2 crawls at least 90 %% of the pages exactly once, as the paper's crawls every page once (ours: %.0f %% never, %.0f %% more than once)", 100*n2, 100*m2))
	check(n3 < 0.01 && m3 > 0, fmt.Sprintf("strategy 3 crawls every page, the fastest more than once (ours %.0f %% more than once, paper 18 %%)", 100*m3))
	return b.String()
}
