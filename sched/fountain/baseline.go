package fountain

import "math"

// Uniform returns the baseline plan that crawls every known page, old or
// new, at the same rate: in each period the same fraction of every bucket
// and of the uncrawled pages, as large as the budget allows (at most all).
// Solve starts from it.
func Uniform(m Model, w Weights) (Plan, error) {
	if err := m.check(w); err != nil {
		return Plan{}, err
	}
	return m.baseline(w, uniformPeriod), nil
}

// Proportional returns the baseline plan that crawls each bucket at a rate
// proportional to its change fraction a_i (new pages counting as a = 1),
// scaled in each period to spend the budget (no bucket above all its pages).
func Proportional(m Model, w Weights) (Plan, error) {
	if err := m.check(w); err != nil {
		return Plan{}, err
	}
	return m.baseline(w, proportional), nil
}

func (m *Model) check(w Weights) error {
	if err := m.validate(); err != nil {
		return err
	}
	if len(w) != m.Periods {
		return ErrBadModel
	}
	return nil
}

// allocator fills period t's crawls in x and z, given the trajectory s of
// the periods before it.
type allocator func(m *Model, t int, s *state, x, z []float64)

func (m *Model) baseline(w Weights, alloc allocator) Plan {
	B, T := len(m.Buckets), m.Periods
	x, z := make([]float64, B*T), make([]float64, T)
	s := newState(B, T)
	for t := range T {
		m.run(w, x, z, s)
		alloc(m, t, s, x, z)
	}
	return m.plan(x, z, s, m.run(w, x, z, s))
}

// uniform fills every period, one after the other, with the uniform
// allocation.
func uniform(m *Model, x, z []float64) {
	s := newState(len(m.Buckets), m.Periods)
	w := make(Weights, m.Periods)
	for t := range m.Periods {
		m.run(w, x, z, s)
		uniformPeriod(m, t, s, x, z)
	}
}

func uniformPeriod(m *Model, t int, s *state, x, z []float64) {
	T := m.Periods
	need := m.NewCost * s.n[t]
	for i, bk := range m.Buckets {
		need += bk.Cost * s.b[i*(T+1)+t]
	}
	f := 1.0
	if need > 0 {
		f = min(1, m.capacity(t)/need)
	}
	for i := range m.Buckets {
		x[i*T+t] = f * s.b[i*(T+1)+t]
	}
	z[t] = f * s.n[t]
}

func proportional(m *Model, t int, s *state, x, z []float64) {
	T := m.Periods
	spend := func(k float64) float64 {
		used := m.NewCost * min(k, 1) * s.n[t]
		for i, bk := range m.Buckets {
			used += bk.Cost * min(k*bk.Change, 1) * s.b[i*(T+1)+t]
		}
		return used
	}
	// Find the largest scale k that fits: spend is nondecreasing in k.
	lo, hi := 0.0, 1.0
	for spend(hi) < m.capacity(t) && hi < 1e12 {
		lo, hi = hi, hi*2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if spend(mid) <= m.capacity(t) {
			lo = mid
		} else {
			hi = mid
		}
	}
	k := lo
	if math.IsInf(k, 0) {
		k = 0
	}
	for i, bk := range m.Buckets {
		x[i*T+t] = min(k*bk.Change, 1) * s.b[i*(T+1)+t]
	}
	z[t] = min(k, 1) * s.n[t]
}
