package assign

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/hivecrawl/hivecrawl/sched/pieces"
	"github.com/hivecrawl/hivecrawl/sim/world"
)

// Unit is what one task crawls: a whole host or one piece of it.
type Unit struct {
	Host  int
	Pages int
}

// Scenario is what every scheme's run shares.
type Scenario struct {
	Config Config
	World  *world.World
	// Pages per host.
	Pages []int
	// Whole has one unit per host; Split the pieces.
	Whole, Split []Unit
	// Arrive is each crawler's first join step (70 % at 0, the rest by a
	// Poisson process).
	Arrive []int
	// First is each host's first submission step (0…9).
	First []int
	Seed  uint64
}

// NewScenario builds the shared set-up.
func NewScenario(cfg Config, seed uint64) (*Scenario, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w, err := world.Build(world.Config{Hosts: cfg.Hosts, Crawlers: cfg.Crawlers, BoxFromHosts: cfg.BoxFromHosts, Trim: cfg.Trim}, seed)
	if err != nil {
		return nil, fmt.Errorf("assignment sim: %w", err)
	}
	r := rand.New(rand.NewPCG(seed, 0x61737367))
	s := &Scenario{Config: cfg, World: w, Seed: seed}
	raw := make([]float64, cfg.Hosts)
	sum := 0.0
	for h := range raw {
		raw[h] = math.Exp(cfg.PagesSigma * r.NormFloat64())
		sum += raw[h]
	}
	// Scale to the paper's total; rounding leaves it within a few pages.
	for h := range raw {
		p := max(1, int(math.Round(raw[h]*cfg.TotalPages/sum)))
		s.Pages = append(s.Pages, p)
		s.Whole = append(s.Whole, Unit{h, p})
		s.First = append(s.First, r.IntN(10))
		ps := pieces.Split(directories(p, r), piecesFor(p), 0)
		if ps == nil {
			s.Split = append(s.Split, Unit{h, p})
		}
		for _, pc := range ps {
			s.Split = append(s.Split, Unit{h, max(1, pc.Pages)})
		}
	}
	initial := int(math.Round(cfg.InitialShare * float64(cfg.Crawlers)))
	step := 0.0
	for c := range cfg.Crawlers {
		if c < initial {
			s.Arrive = append(s.Arrive, 0)
			continue
		}
		step += r.ExpFloat64() / cfg.ArrivalRate
		s.Arrive = append(s.Arrive, max(1, int(step)))
	}
	return s, nil
}

func piecesFor(pages int) int {
	switch {
	case pages < 1000:
		return 1
	case pages < 10000:
		return 2
	case pages < 100000:
		return 3
	}
	return 4
}

// directories makes up first-level directory sizes for a host of pages
// pages: 10–40 directories with Zipf(1.5) weights, plus root files.
func directories(pages int, r *rand.Rand) map[string]int {
	n := 10 + r.IntN(31)
	w := make([]float64, n)
	sum := 0.0
	for k := range w {
		w[k] = math.Pow(float64(k+1), -1.5)
		sum += w[k]
	}
	dirs := map[string]int{pieces.Root: max(1, pages/50)}
	left := pages - dirs[pieces.Root]
	for k := range w {
		dirs["/d"+strconv.Itoa(k)+"/"] = int(float64(left) * w[k] / sum)
	}
	return dirs
}
