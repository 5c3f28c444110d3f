package fountain

import (
	"errors"
	"fmt"
)

// ErrBadModel is returned for a model or weighting that cannot be planned.
var ErrBadModel = errors.New("fountain: bad model")

// Bucket is a set of pages with about the same change rate.
type Bucket struct {
	// Pages is b_i0, the pages in the bucket at the start of the cycle.
	Pages float64 `json:"pages"`
	// Obsolete is y_i0, how many of them are already stale in the
	// repository at the start.
	Obsolete float64 `json:"obsolete"`
	// Change is a_i, the fraction of the bucket's pages that change in one
	// period (1 − e^{−λ·period} for a Poisson change rate λ).
	Change float64 `json:"change"`
	// Cost is c_i, the seconds one crawl of one of its pages takes.
	Cost float64 `json:"cost"`
	// FindsNew is oldnwt_i, the probability that crawling one of its pages
	// discovers a new page.
	FindsNew float64 `json:"finds_new"`
	// NewShare is p_i, the share of newly crawled pages that join this
	// bucket. The shares should sum to 1.
	NewShare float64 `json:"new_share"`
}

// Model is one crawler cycle to plan.
type Model struct {
	// Buckets, in any order (Plan keeps it).
	Buckets []Bucket `json:"buckets"`
	// Periods is T.
	Periods int `json:"periods"`
	// Capacity is C_t, the crawl seconds of each period; one value is
	// used for every period.
	Capacity []float64 `json:"capacity"`
	// NewCost is d, the seconds to crawl one new page.
	NewCost float64 `json:"new_cost"`
	// NewFindsNew is newnwt, the probability that crawling a new page
	// discovers another new page.
	NewFindsNew float64 `json:"new_finds_new"`
	// NewArrivals is nconst, new pages brought to the crawler's attention
	// per period from outside.
	NewArrivals float64 `json:"new_arrivals"`
	// Uncrawled is n_0, known but never crawled pages at the start.
	Uncrawled float64 `json:"uncrawled"`
}

func (m *Model) capacity(t int) float64 {
	if len(m.Capacity) == 1 {
		return m.Capacity[0]
	}
	return m.Capacity[t]
}

func (m *Model) validate() error {
	if len(m.Buckets) == 0 {
		return fmt.Errorf("%w: no buckets", ErrBadModel)
	}
	if m.Periods < 1 {
		return fmt.Errorf("%w: %d periods", ErrBadModel, m.Periods)
	}
	if len(m.Capacity) != 1 && len(m.Capacity) != m.Periods {
		return fmt.Errorf("%w: %d capacities for %d periods", ErrBadModel, len(m.Capacity), m.Periods)
	}
	for t, c := range m.Capacity {
		if !(c >= 0) {
			return fmt.Errorf("%w: capacity %g in period %d", ErrBadModel, c, t+1)
		}
	}
	if !(m.NewCost > 0) || !(m.NewFindsNew >= 0 && m.NewFindsNew <= 1) || !(m.NewArrivals >= 0) || !(m.Uncrawled >= 0) {
		return fmt.Errorf("%w: new-page cost %g, discovery %g, arrivals %g, uncrawled %g",
			ErrBadModel, m.NewCost, m.NewFindsNew, m.NewArrivals, m.Uncrawled)
	}
	for i, b := range m.Buckets {
		switch {
		case !(b.Pages >= 0), !(b.Obsolete >= 0 && b.Obsolete <= b.Pages):
			return fmt.Errorf("%w: bucket %d has %g pages, %g obsolete", ErrBadModel, i, b.Pages, b.Obsolete)
		case !(b.Change >= 0 && b.Change <= 1):
			return fmt.Errorf("%w: bucket %d change fraction %g", ErrBadModel, i, b.Change)
		case !(b.Cost > 0):
			return fmt.Errorf("%w: bucket %d cost %g", ErrBadModel, i, b.Cost)
		case !(b.FindsNew >= 0 && b.FindsNew <= 1), !(b.NewShare >= 0 && b.NewShare <= 1):
			return fmt.Errorf("%w: bucket %d discovery %g, share %g", ErrBadModel, i, b.FindsNew, b.NewShare)
		}
	}
	return nil
}

// Weights gives each period's weight on the obsolete pages (old and new)
// counted at its end.
type Weights []float64

// Equal is strategy 1: every period weighs 1/T.
func Equal(periods int) Weights {
	w := make(Weights, periods)
	for t := range w {
		w[t] = 1 / float64(periods)
	}
	return w
}

// LastOnly is strategy 2: only the last period counts.
func LastOnly(periods int) Weights {
	w := make(Weights, periods)
	w[periods-1] = 1
	return w
}

// LastHigh is strategy 3: every period but the last weighs low (0.01
// each, the paper's "very low") and the last one the rest of 1.
func LastHigh(periods int) Weights {
	const low = 0.01
	w := make(Weights, periods)
	for t := range w {
		w[t] = low
	}
	w[periods-1] = max(0, 1-low*float64(periods-1))
	return w
}

// state is the trajectory of a plan: b and y per bucket and period
// boundary (index i*(T+1)+t, t = 0 … T), n per boundary, and the obsolete
// pages before crawling, g, per bucket and period (index i*T+t).
type state struct {
	b, y, n, g []float64
}

func newState(buckets, periods int) *state {
	return &state{
		b: make([]float64, buckets*(periods+1)),
		y: make([]float64, buckets*(periods+1)),
		n: make([]float64, periods+1),
		g: make([]float64, buckets*periods),
	}
}

// run plays the crawls x (index i*T+t) and z through the cycle, clamping
// them in place to their bounds (x_it ≤ b_{i,t−1}, z_t ≤ n_{t−1}), fills s,
// and returns the weighted objective.
func (m *Model) run(w Weights, x, z []float64, s *state) float64 {
	T := m.Periods
	for i, bk := range m.Buckets {
		s.b[i*(T+1)] = bk.Pages
		s.y[i*(T+1)] = bk.Obsolete
	}
	s.n[0] = m.Uncrawled
	obj := 0.0
	for t := range T {
		zt := min(max(z[t], 0), s.n[t])
		z[t] = zt
		found := 0.0
		for i := range m.Buckets {
			bk := &m.Buckets[i]
			k := i*(T+1) + t
			b, y := s.b[k], s.y[k]
			xi := min(max(x[i*T+t], 0), b)
			x[i*T+t] = xi
			g := (1-bk.Change)*y + bk.Change*b
			s.g[i*T+t] = g
			yn := g
			if b > 0 {
				yn = (1 - xi/b) * g
			}
			s.y[k+1] = yn
			s.b[k+1] = b + bk.NewShare*zt
			found += bk.FindsNew * xi
			obj += w[t] * yn
		}
		s.n[t+1] = max(0, s.n[t]+found+(m.NewFindsNew-1)*zt+m.NewArrivals)
		obj += w[t] * s.n[t+1]
	}
	return obj
}
