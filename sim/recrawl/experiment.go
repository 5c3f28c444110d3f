package recrawl

import (
	"fmt"
	"runtime"
	"sync"
)

// Experiment is one case (REC or RUC) run under every strategy.
type Experiment struct {
	Scenario *Scenario
	Results  []*Result
}

// RunExperiment builds the scenario for cfg and runs kinds on it, in
// parallel (each run is independent and deterministic, so the results do
// not depend on the order or the number of cores).
func RunExperiment(cfg Config, kinds []Kind, seed uint64) (*Experiment, error) {
	sc, err := NewScenario(cfg, seed)
	if err != nil {
		return nil, err
	}
	x := &Experiment{Scenario: sc, Results: make([]*Result, len(kinds))}
	errs := make([]error, len(kinds))
	// Workers take the runs in order of their expected cost (FIXED and
	// the controller submit the most tasks), which shortens the whole.
	order := make([]int, 0, len(kinds))
	for _, heavy := range []bool{true, false} {
		for i, k := range kinds {
			if (k == Fixed || k == Controller) == heavy {
				order = append(order, i)
			}
		}
	}
	next := make(chan int, len(order))
	for _, i := range order {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(kinds))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				x.Results[i], errs[i] = sc.Run(kinds[i], cfg.Counting)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("recrawl sim %s %s: %w", cfg.Name, kinds[i], err)
		}
	}
	return x, nil
}

// counts returns the channels per group.
func (x *Experiment) counts() []int {
	return GroupCounts(x.Scenario.Config.Channels, x.Scenario.Config.GroupShares)
}
