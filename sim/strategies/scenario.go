package strategies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/hivecrawl/hivecrawl/sched/recrawl"
	"github.com/hivecrawl/hivecrawl/sim/world"
)

// Scenario is what every strategy's run shares: the world, the channels
// with their groups and page counts, and the crawlers' bandwidths. Runs
// over one Scenario differ only in the strategy.
type Scenario struct {
	Config   Config
	World    *world.World
	Channels []recrawl.Channel
	// Pages is each channel's page count.
	Pages []int32
	// Bandwidth is each crawler's download bandwidth in Mb/s.
	Bandwidth []float64
	// First is each channel's first submission step, spread over its
	// first interval so the manager does not submit everything at once.
	First []int32
	Seed  uint64
}

// NewScenario builds the shared set-up for cfg from seed.
func NewScenario(cfg Config, seed uint64) (*Scenario, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w, err := world.Build(world.Config{Hosts: cfg.Channels, Crawlers: cfg.Crawlers}, seed)
	if err != nil {
		return nil, fmt.Errorf("recrawl sim: %w", err)
	}
	r := rand.New(rand.NewPCG(seed, 0x7363656e))
	s := &Scenario{Config: cfg, World: w, Seed: seed}
	counts := GroupCounts(cfg.Channels, cfg.GroupShares)
	groups := make([]int, 0, cfg.Channels)
	for p, n := range counts {
		for range n {
			groups = append(groups, p)
		}
	}
	r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	mu := math.Log(cfg.MeanPages) - cfg.PagesSigma*cfg.PagesSigma/2
	for _, p := range groups {
		s.Channels = append(s.Channels, recrawl.Channel{Group: p, ChangeInterval: time.Duration(cfg.GroupIntervals[p]) * Step})
		pages := math.Max(1, math.Round(math.Exp(mu+cfg.PagesSigma*r.NormFloat64())))
		s.Pages = append(s.Pages, int32(math.Min(pages, math.MaxInt32)))
		s.First = append(s.First, int32(r.IntN(cfg.GroupIntervals[p])))
	}
	for range cfg.Crawlers {
		s.Bandwidth = append(s.Bandwidth, Bandwidth(r))
	}
	return s, nil
}

// GroupCounts splits n channels by shares, largest remainders first, so
// the counts add up to n.
func GroupCounts(n int, shares []float64) []int {
	sum := 0.0
	for _, v := range shares {
		sum += v
	}
	out := make([]int, len(shares))
	rem := make([]float64, len(shares))
	left := n
	for p, v := range shares {
		exact := float64(n) * v / sum
		out[p] = int(exact)
		rem[p] = exact - float64(out[p])
		left -= out[p]
	}
	for ; left > 0; left-- {
		best := 0
		for p := range rem {
			if rem[p] > rem[best] {
				best = p
			}
		}
		out[best]++
		rem[best] = -1
	}
	return out
}

// Bandwidth draws a crawler's bandwidth in Mb/s: 1.5·N(1, 0.5) rounded to
// the nearest of 0.5, 1 and 2 (design.md §9).
func Bandwidth(r *rand.Rand) float64 {
	v := 1.5 * (1 + 0.5*r.NormFloat64())
	best := 0.5
	for _, l := range []float64{1, 2} {
		if math.Abs(v-l) < math.Abs(v-best) {
			best = l
		}
	}
	return best
}

// Kind names a strategy to run.
type Kind string

// The strategies compared.
const (
	Fixed      Kind = "FIXED"
	IIR        Kind = "IIR"
	ICR        Kind = "ICR"
	Controller Kind = "Controller"
)

// Kinds lists the strategies in the order results show them.
var Kinds = []Kind{Fixed, IIR, ICR, Controller}

func (s *Scenario) strategy(k Kind, counting recrawl.Counting) (recrawl.Strategy, error) {
	cfg := recrawl.Config{Groups: len(s.Config.GroupShares), Counting: counting}
	switch k {
	case Fixed:
		return recrawl.NewFixed(s.Channels, cfg, Start)
	case IIR:
		return recrawl.NewIIR(s.Channels, cfg, Start)
	case ICR:
		return recrawl.NewICR(s.Channels, cfg, Start)
	case Controller:
		return recrawl.NewController(s.Channels, cfg, Start)
	}
	return nil, fmt.Errorf("recrawl sim: unknown strategy %q", k)
}
