package assign

import (
	"fmt"
	"runtime"
	"sync"
)

// Compare builds cfg's scenario for seed and runs each scheme on it with
// every crawler, in parallel; results are in schemes' order and each is
// deterministic on its own.
func Compare(cfg Config, seed uint64, schemes []Scheme) (*Scenario, []*Result, error) {
	sc, err := NewScenario(cfg, seed)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*Result, len(schemes))
	errs := make([]error, len(schemes))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, s := range schemes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = sc.Run(s, 0)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, nil, fmt.Errorf("assignment sim %s: %w", schemes[i], err)
		}
	}
	return sc, out, nil
}

// MeanHalfRTT is the crawler–host RTT/2 of executing tasks in ms averaged
// over the run (Fig. 16).
func (r *Result) MeanHalfRTT() float64 { return r.mean(func(s Sample) float64 { return s.HalfRTT }) }

// MeanExecuting is the tasks executing averaged over the run (Fig. 17a).
func (r *Result) MeanExecuting() float64 {
	return r.mean(func(s Sample) float64 { return s.Executing })
}

// MeanQueued is the tasks queued averaged over the run (Fig. 18a).
func (r *Result) MeanQueued() float64 { return r.mean(func(s Sample) float64 { return s.Queued }) }

// MeanCVAll is the load variation over all tasks averaged over the run
// (Fig. 19a).
func (r *Result) MeanCVAll() float64 { return r.mean(func(s Sample) float64 { return s.CVAll }) }
