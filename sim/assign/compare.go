package assign

// Compare builds cfg's scenario for seed and runs each scheme on it with
// every crawler, in parallel; results are in schemes' order and each is
// deterministic on its own.
func Compare(cfg Config, seed uint64, schemes []Scheme) (*Scenario, []*Result, error) {
	sc, err := NewScenario(cfg, seed)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*Result, len(schemes))
	jobs := make([]job, len(schemes))
	for i, s := range schemes {
		jobs[i] = job{&out[i], s, 0}
	}
	if err := sc.runAll(jobs); err != nil {
		return nil, nil, err
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
