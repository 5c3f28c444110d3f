package channels

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/hivecrawl/hivecrawl/sched/fountain"
	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/task"
)

// Page plans: which known pages of a channel a recrawl fetches. Pages
// not chosen go in the task's Skip filter, so the crawler leaves them
// alone even when a link leads to them; pages the channel does not know
// yet are always fetched when found.
const (
	// PlanAll revisits every known page every round, oldest first, each
	// with a conditional GET.
	PlanAll = "all"
	// PlanAdaptive is paper 003: each page is revisited every fr_max
	// rounds, fr_max adapted to how often the page was found changed, and
	// the selective incremental rule revisits the pages below an
	// unchanged page when enough of them changed.
	PlanAdaptive = "adaptive"
	// PlanFountain is paper 001's planner: pages are grouped by their
	// estimated change rate and each round's budget is split among the
	// groups to minimise the obsolete pages over the next rounds.
	PlanFountain = "fountain"
)

// Defaults of a PagePlan.
const (
	DefaultPlan = PlanAdaptive
	// DefaultLimit is paper 003's limit: the crawls examined to adapt
	// fr_max (its worked example uses 20).
	DefaultLimit = 20
	// DefaultShare is the planner's budget, as a share of the known pages,
	// when neither the plan nor the channel sets one.
	DefaultShare = 0.5
	// DefaultPeriods is the planner's horizon T in rounds.
	DefaultPeriods = 4
)

// PagePlan chooses the known pages each recrawl fetches.
type PagePlan struct {
	// Kind is PlanAll, PlanAdaptive or PlanFountain; "" = DefaultPlan.
	Kind string `json:"kind,omitempty"`
	// Budget caps the known pages one task revisits; 0 takes the
	// channel's page limit, and for PlanFountain, without one either,
	// DefaultShare of its known pages.
	Budget int `json:"budget,omitempty"`
	// Limit is how many of a page's latest crawls adapt its fr_max
	// (PlanAdaptive); 0 = DefaultLimit.
	Limit int `json:"limit,omitempty"`
	// Periods is the planner's horizon T in rounds; 0 = DefaultPeriods.
	Periods int `json:"periods,omitempty"`
}

func (p PagePlan) withDefaults() PagePlan {
	if p.Kind == "" {
		p.Kind = DefaultPlan
	}
	if p.Limit <= 0 {
		p.Limit = DefaultLimit
	}
	if p.Periods <= 0 {
		p.Periods = DefaultPeriods
	}
	return p
}

// ParsePlan checks a plan name given by an operator.
func ParsePlan(s string) (string, error) {
	switch s {
	case PlanAll, PlanAdaptive, PlanFountain:
		return s, nil
	}
	return "", fmt.Errorf("unknown page plan %q (want %s, %s or %s)", s, PlanAll, PlanAdaptive, PlanFountain)
}

// revisit splits the known pages urls of one task into those it fetches,
// in the order the crawler should queue them, and those it leaves alone.
// The channel's seeds are always fetched (as seeds), so they lead the list
// whenever the channel knows them, for their validators. plan has its
// defaults filled in.
func (c *Channel) revisit(urls []string, plan PagePlan, round int, parents map[task.Digest]parent) (list, skip []string) {
	seeds := make(map[string]bool, len(c.Seeds))
	for _, s := range c.Seeds {
		seeds[s] = true
	}
	var rest []string
	for _, u := range urls {
		if seeds[u] {
			list = append(list, u)
		} else {
			rest = append(rest, u)
		}
	}
	slices.Sort(list)
	budget := plan.Budget
	if budget <= 0 {
		budget = c.MaxPages
	}
	var chosen []string
	switch plan.Kind {
	case PlanAll:
		// Oldest first, so a budget smaller than the site takes turns.
		slices.SortFunc(rest, func(a, b string) int {
			return cmp.Or(cmp.Compare(c.Pages[a].Round, c.Pages[b].Round), strings.Compare(a, b))
		})
		if budget > 0 && len(rest) > budget {
			return append(list, rest[:budget]...), rest[budget:]
		}
		return append(list, rest...), nil
	case PlanFountain:
		if budget <= 0 {
			budget = int(math.Ceil(DefaultShare * float64(len(urls))))
		}
		chosen = c.fountainPick(rest, budget, plan.Periods, round, parents)
	default:
		chosen = c.adaptivePick(rest, budget, round, parents)
	}
	in := make(map[string]bool, len(chosen))
	for _, u := range chosen {
		in[u] = true
	}
	for _, u := range rest {
		if !in[u] {
			skip = append(skip, u)
		}
	}
	return append(list, chosen...), skip
}

// overdue is how many rounds past its fr_max page p is at round; ≥ 0 means
// due. A page never crawled under a plan (FrMax 0) is due.
func (p Page) overdue(round int) int {
	if p.FrMax == 0 {
		return round
	}
	return round - p.Round - p.FrMax
}

// adaptivePick returns the pages due at round by their own frequency,
// most overdue first, at most budget of them (0 = no cap), with paper
// 003's selective incremental rule on top: a due page below a page found
// unchanged waits, unless the rule follows that page (enough of the pages
// below it changed), its own last crawl found it changed, or it is a whole
// fr_max overdue; below a page the rule follows, pages are revisited due
// or not.
func (c *Channel) adaptivePick(urls []string, budget, round int, parents map[task.Digest]parent) []string {
	var due []string
	for _, u := range urls {
		p := c.Pages[u]
		par, ok := parents[p.Parent]
		over := p.overdue(round)
		switch {
		case p.Parent == 0 || !ok:
			if over >= 0 {
				due = append(due, u)
			}
		case par.follow:
			due = append(due, u)
		case over >= 0 && (!par.quiet || p.History&1 == 1 || over >= p.FrMax):
			due = append(due, u)
		}
	}
	slices.SortFunc(due, func(a, b string) int {
		return cmp.Or(cmp.Compare(c.Pages[b].overdue(round), c.Pages[a].overdue(round)), strings.Compare(a, b))
	})
	if budget > 0 && len(due) > budget {
		due = due[:budget]
	}
	return due
}

// parent is what the selective rule needs of a page others link from.
type parent struct{ follow, quiet bool }

// parents indexes c's pages by URL digest for the selective rule (nil
// when plan, its defaults filled in, does not use it): built once per round, shared by its tasks.
func (c *Channel) parents(plan PagePlan) map[task.Digest]parent {
	if plan.Kind != PlanAdaptive && plan.Kind != PlanFountain {
		return nil
	}
	out := make(map[task.Digest]parent, len(c.Pages))
	for u, p := range c.Pages {
		out[task.DigestString(u)] = parent{follow: p.Follow, quiet: p.Records > 0 && p.History&1 == 0}
	}
	return out
}

// seenWindow is the number of crawls a page's change-rate record
// reaches before it is halved.
const seenWindow = 64

// observe records one crawl of p that found it changed or not, gap rounds
// after the crawl before it.
func (p *Page) observe(changed bool, gap int) {
	p.Seen++
	p.Span += max(gap, 1)
	if changed {
		p.Changes++
	}
	if p.Seen >= seenWindow {
		p.Seen, p.Changes, p.Span = p.Seen/2, p.Changes/2, p.Span/2
	}
}

// changeRate estimates p's Poisson change rate, per round. It is Cho and
// Garcia-Molina's estimator for changes seen at intervals over the mean
// interval, which, unlike X over the rounds covered, is not biased low by
// several changes between two crawls; its denominator is n+1 instead of
// n+½, half a change of prior, so that a page not yet seen to change is
// not taken for one that never will (whose stored copy would then never
// look stale, and the planner would not visit it again). A record from before crawls were counted falls back on the
// history bits at a spacing of FrMax; a page never recrawled gets the
// prior of one change in two rounds.
func (p Page) changeRate() float64 {
	n, x, span := float64(p.Seen), float64(p.Changes), float64(p.Span)
	if p.Seen == 0 {
		if p.Records == 0 {
			return math.Ln2
		}
		k := min(p.Records, 64)
		h := p.History
		if k < 64 {
			h &= 1<<k - 1
		}
		n, x, span = float64(k), float64(bits.OnesCount64(h)), float64(k*max(p.FrMax, 1))
	}
	return -math.Log((n-x+0.5)/(n+1)) / (span / n)
}

// stale is the chance that p's stored copy is out of date at round.
func (p Page) stale(rate float64, round int) float64 {
	return -math.Expm1(-rate * float64(max(round-p.Round, 1)))
}

// fountainBounds are the upper change rates (per round) of the planner's
// buckets: pages are grouped by order of magnitude of their change rate.
var fountainBounds = []float64{0.01, 0.03, 0.1, 0.3, 1}

// fountainPick solves paper 001's model over the next periods rounds with
// the pages grouped by change rate, and returns the pages the plan's first
// period crawls: in each group, those likeliest to be stale.
func (c *Channel) fountainPick(urls []string, budget, periods, round int, parents map[task.Digest]parent) []string {
	groups := make([][]string, len(fountainBounds))
	m := fountain.Model{Periods: periods, Capacity: []float64{float64(budget)}, NewCost: 1}
	m.Buckets = make([]fountain.Bucket, len(fountainBounds))
	rates := make([]float64, len(fountainBounds))
	staleness := make(map[string]float64, len(urls))
	for _, u := range urls {
		p := c.Pages[u]
		r := p.changeRate()
		a := -math.Expm1(-r) // the chance of a change within one round
		i, _ := slices.BinarySearch(fountainBounds, a)
		i = min(i, len(fountainBounds)-1)
		groups[i] = append(groups[i], u)
		rates[i] += a
		b := &m.Buckets[i]
		b.Pages++
		staleness[u] = p.stale(r, round)
		b.Obsolete += staleness[u]
	}
	for i := range m.Buckets {
		b := &m.Buckets[i]
		b.Cost = 1
		if b.Pages > 0 {
			b.Change = rates[i] / b.Pages
		}
		b.Obsolete = min(b.Obsolete, b.Pages)
	}
	plan, err := fountain.Solve(m, fountain.Equal(periods), fountain.Options{})
	if err != nil {
		// A model that does not solve (no pages) leaves the budget to the
		// pages crawled longest ago.
		return c.adaptivePick(urls, budget, round, parents)
	}
	var out []string
	for i, g := range groups {
		n := int(math.Round(plan.Crawls[i][0]))
		if n <= 0 {
			continue
		}
		// The likeliest stale first.
		slices.SortFunc(g, func(a, b string) int {
			return cmp.Or(cmp.Compare(staleness[b], staleness[a]), strings.Compare(a, b))
		})
		out = append(out, g[:min(n, len(g))]...)
	}
	return out
}

// freq returns p's adaptive frequency state.
func (p Page) freq() recrawl.PageFreq {
	return recrawl.PageFreq{FrMax: p.FrMax, Fr: p.FrMax, Records: p.Records, History: p.History, Threshold: p.Threshold}
}

// setFreq keeps f in p.
func (p *Page) setFreq(f recrawl.PageFreq) {
	p.FrMax, p.Records, p.History, p.Threshold = f.FrMax, f.Records, f.History, f.Threshold
}
