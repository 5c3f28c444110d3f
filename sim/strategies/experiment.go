package strategies

import (
	"fmt"
)

// Experiment is one case (REC or RUC) run under every strategy.
type Experiment struct {
	Scenario *Scenario
	Results  []*Result
}

// RunExperiment builds the scenario for cfg and runs kinds on it in
// lockstep over one shared swarm (Scenario.RunAll); each run is
// deterministic, whatever the number of cores.
func RunExperiment(cfg Config, kinds []Kind, seed uint64) (*Experiment, error) {
	sc, err := NewScenario(cfg, seed)
	if err != nil {
		return nil, err
	}
	rs, err := sc.RunAll(kinds, cfg.Counting)
	if err != nil {
		return nil, fmt.Errorf("recrawl sim %s: %w", cfg.Name, err)
	}
	return &Experiment{Scenario: sc, Results: rs}, nil
}

// counts returns the channels per group.
func (x *Experiment) counts() []int {
	return GroupCounts(x.Scenario.Config.Channels, x.Scenario.Config.GroupShares)
}
