package fountain

import (
	"fmt"
	"math"
	"sort"
)

// Options bound the solver's work. The zero value gives the defaults.
type Options struct {
	// Iterations caps the steps of each method. 0 = 400.
	Iterations int `json:"iterations"`
	// Tolerance stops a method when its gain per step (projected
	// gradient, for five steps running) or its Frank–Wolfe gap (an upper
	// bound on what a first-order step could still gain) falls below this
	// share of the objective. 0 = 1e-5.
	Tolerance float64 `json:"tolerance"`
}

// Solve plans the cycle of m for the weighting w.
func Solve(m Model, w Weights, opt Options) (Plan, error) {
	if err := m.check(w); err != nil {
		return Plan{}, err
	}
	for t, v := range w {
		if !(v >= 0) {
			return Plan{}, fmt.Errorf("%w: weight %g in period %d", ErrBadModel, v, t+1)
		}
	}
	if opt.Iterations == 0 {
		opt.Iterations = 400
	}
	if opt.Tolerance == 0 {
		opt.Tolerance = 1e-5
	}
	// Two local methods from the uniform start; the better plan wins.
	var best *solver
	for _, method := range []func(*solver, Options) int{(*solver).descend, (*solver).frankWolfe} {
		sv := newSolver(&m, w)
		uniform(&m, sv.x, sv.z)
		sv.obj = m.run(w, sv.x, sv.z, sv.s)
		sv.iter = method(sv, opt)
		if best == nil || sv.obj < best.obj {
			best = sv
		}
	}
	gap := best.gap()
	p := m.plan(best.x, best.z, best.s, best.obj)
	p.Iterations, p.Gap = best.iter, gap
	return p, nil
}

// solver holds the current point, its trajectory and scratch space.
type solver struct {
	m      *Model
	w      Weights
	x, z   []float64 // current point
	s      *state    // its trajectory
	obj    float64   // its objective
	gx, gz []float64 // gradient at it
	tx, tz []float64 // trial point
	ts     *state
	sx, sz []float64 // Frank–Wolfe vertex
	items  []item
	iter   int // iterations run
}

func newSolver(m *Model, w Weights) *solver {
	B, T := len(m.Buckets), m.Periods
	return &solver{
		m: m, w: w,
		x: make([]float64, B*T), z: make([]float64, T), s: newState(B, T),
		gx: make([]float64, B*T), gz: make([]float64, T),
		tx: make([]float64, B*T), tz: make([]float64, T), ts: newState(B, T),
		sx: make([]float64, B*T), sz: make([]float64, T),
		items: make([]item, 0, B+1),
	}
}

// accept makes the trial point current.
func (sv *solver) accept(obj float64) {
	copy(sv.x, sv.tx)
	copy(sv.z, sv.tz)
	sv.obj = sv.m.run(sv.w, sv.x, sv.z, sv.s)
}

// descend runs scaled projected gradient steps: each variable moves by
// −η·gradient·scale², scale being its bound (the bucket's pages, or the
// uncrawled ones), i.e. a gradient step on the crawl fractions, then the
// period's crawls are projected back onto its budget. η grows after a
// success and shrinks until the objective falls (backtracking). It stops
// when the relative gain of an iteration stays under opt.Tolerance for a
// few iterations.
func (sv *solver) descend(opt Options) int {
	m, T := sv.m, sv.m.Periods
	eta := 0.0
	calm := 0
	iter := 0
	for ; iter < opt.Iterations && calm < 5; iter++ {
		m.gradient(sv.w, sv.x, sv.s, sv.gx, sv.gz)
		if eta == 0 {
			big := 0.0
			for i := range m.Buckets {
				for t := range T {
					big = max(big, math.Abs(sv.gx[i*T+t])*sv.s.b[i*(T+1)+t])
				}
			}
			for t := range T {
				big = max(big, math.Abs(sv.gz[t])*sv.s.n[t])
			}
			if big == 0 {
				break
			}
			eta = 0.5 / big
		}
		improved := false
		for tries := 0; tries < 40; tries++ {
			sv.step(eta)
			v := m.run(sv.w, sv.tx, sv.tz, sv.ts)
			if v < sv.obj {
				gain := (sv.obj - v) / math.Max(math.Abs(sv.obj), 1e-300)
				sv.accept(v)
				if gain < opt.Tolerance {
					calm++
				} else {
					calm = 0
				}
				eta *= 2
				improved = true
				break
			}
			eta /= 4
		}
		if !improved {
			break
		}
	}
	return iter
}

// step fills the trial point with the projected gradient step of size eta.
func (sv *solver) step(eta float64) {
	m, T := sv.m, sv.m.Periods
	for t := range T {
		sv.items = sv.items[:0]
		for i := range m.Buckets {
			k := i*T + t
			u := sv.s.b[i*(T+1)+t]
			sv.items = append(sv.items, item{k: k, benefit: sv.x[k] - eta*sv.gx[k]*u*u, cost: m.Buckets[i].Cost, upper: u})
		}
		u := sv.s.n[t]
		sv.items = append(sv.items, item{k: -1, benefit: sv.z[t] - eta*sv.gz[t]*u*u, cost: m.NewCost, upper: u})
		project(sv.items, m.capacity(t))
		for _, it := range sv.items {
			if it.k < 0 {
				sv.tz[t] = it.benefit
			} else {
				sv.tx[it.k] = it.benefit
			}
		}
	}
}

// project replaces each item's target value (in benefit) by its projection
// onto {0 ≤ v ≤ upper, Σ cost·v ≤ budget} in the metric scaled by upper²:
// v = clamp(target − θ·cost·upper², 0, upper) with the least θ ≥ 0 that
// fits the budget, found by bisection.
func project(items []item, budget float64) {
	at := func(it item, theta float64) float64 {
		return min(max(it.benefit-theta*it.cost*it.upper*it.upper, 0), it.upper)
	}
	spend := func(theta float64) float64 {
		sum := 0.0
		for _, it := range items {
			sum += it.cost * at(it, theta)
		}
		return sum
	}
	theta := 0.0
	if spend(0) > budget {
		lo, hi := 0.0, 0.0
		for _, it := range items {
			if d := it.cost * it.upper * it.upper; d > 0 {
				hi = max(hi, it.benefit/d)
			}
		}
		for range 60 {
			mid := (lo + hi) / 2
			if spend(mid) > budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		theta = hi
	}
	for k := range items {
		items[k].benefit = at(items[k], theta)
	}
	// Bisection and rounding can leave the spend an ulp over the budget.
	if used := spend(0); used > budget {
		scale := 0.0
		if used > 0 {
			scale = budget / used
		}
		for k := range items {
			items[k].benefit *= scale
		}
	}
}

// frankWolfe runs conditional-gradient steps: towards the vertex that
// minimises the linearised objective (each period's fractional knapsack),
// by the step a line search finds best on the true objective. It stops
// when the gap falls under opt.Tolerance of the objective or no step helps.
func (sv *solver) frankWolfe(opt Options) int {
	m := sv.m
	trial := func(g float64) float64 {
		for k := range sv.x {
			sv.tx[k] = sv.x[k] + g*(sv.sx[k]-sv.x[k])
		}
		for k := range sv.z {
			sv.tz[k] = sv.z[k] + g*(sv.sz[k]-sv.z[k])
		}
		return m.run(sv.w, sv.tx, sv.tz, sv.ts)
	}
	iter := 0
	for ; iter < opt.Iterations; iter++ {
		if sv.gap() <= opt.Tolerance*math.Abs(sv.obj) {
			break
		}
		g, v := lineSearch(trial)
		if !(v < sv.obj) {
			break
		}
		trial(g)
		sv.accept(v)
	}
	return iter
}

// gap returns the Frank–Wolfe gap at the current point: how much the
// linearised objective could still fall within the constraints. It is 0
// at a first-order stationary point.
func (sv *solver) gap() float64 {
	sv.m.gradient(sv.w, sv.x, sv.s, sv.gx, sv.gz)
	sv.m.linearMin(sv.s, sv.gx, sv.gz, sv.sx, sv.sz, sv.items)
	gap := 0.0
	for k := range sv.x {
		gap += sv.gx[k] * (sv.x[k] - sv.sx[k])
	}
	for k := range sv.z {
		gap += sv.gz[k] * (sv.z[k] - sv.sz[k])
	}
	return gap
}

// lineSearch minimises f on [0, 1] by golden-section search, also trying
// the full step, and returns the best step and value.
func lineSearch(f func(float64) float64) (float64, float64) {
	const phi = 0.6180339887498949
	lo, hi := 0.0, 1.0
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	fa, fb := f(a), f(b)
	for range 30 {
		if fa < fb {
			hi, b, fb = b, a, fa
			a = hi - phi*(hi-lo)
			fa = f(a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + phi*(hi-lo)
			fb = f(b)
		}
	}
	best, v := a, fa
	if fb < v {
		best, v = b, fb
	}
	if f1 := f(1); f1 < v {
		best, v = 1, f1
	}
	return best, v
}

// gradient fills gx and gz with the objective's partial derivatives at x
// (whose trajectory s holds) by one backward adjoint pass per bucket.
//
// λ_it, the weighted obsolete pages one more obsolete page at the end of
// period t causes from then on, is w_t + (1−f_{i,t+1})(1−a_i)·λ_{i,t+1}.
// Crawling one more page in period t turns g/b of a page from obsolete to
// fresh and discovers oldnwt new pages, each counted in every later period.
// A new page crawled joins the buckets, raising each b_is for s > t by p_i.
func (m *Model) gradient(w Weights, x []float64, s *state, gx, gz []float64) {
	T := m.Periods
	tail := make([]float64, T+1) // M_t = Σ_{s≥t} w_s
	for t := T - 1; t >= 0; t-- {
		tail[t] = tail[t+1] + w[t]
	}
	for t := range gz {
		gz[t] = (m.NewFindsNew - 1) * tail[t]
	}
	for i := range m.Buckets {
		bk := &m.Buckets[i]
		lambda, d := 0.0, 0.0 // λ_{i,t+1}, Σ_{r>t} λ_ir·∂y_{r}/∂b_{r−1}
		nextKeep := 0.0       // (1 − f_{i,t+1})(1 − a_i)
		for t := T - 1; t >= 0; t-- {
			b := s.b[i*(T+1)+t]
			g := s.g[i*T+t]
			xi := x[i*T+t]
			lambda = w[t] + nextKeep*lambda
			grad := bk.FindsNew * tail[t]
			f, h := 0.0, bk.Change
			if b > 0 {
				f = xi / b
				grad -= g / b * lambda
				h = xi/(b*b)*g + (1-f)*bk.Change
			}
			gx[i*T+t] = grad
			gz[t] += bk.NewShare * d
			d += lambda * h
			nextKeep = (1 - f) * (1 - bk.Change)
		}
	}
}

type item struct {
	k       int // index into x, or −1 for z
	benefit float64
	cost    float64
	upper   float64
}

// linearMin solves the Frank–Wolfe subproblem: minimise ⟨g, s⟩ over each
// period's knapsack, filling the budget with the variables of largest
// benefit (−gradient) per second up to their bounds at the current point.
func (m *Model) linearMin(s *state, gx, gz, sx, sz []float64, items []item) {
	T := m.Periods
	clear(sx)
	clear(sz)
	for t := range T {
		items = items[:0]
		for i := range m.Buckets {
			if g := gx[i*T+t]; g < 0 {
				items = append(items, item{k: i*T + t, benefit: -g, cost: m.Buckets[i].Cost, upper: s.b[i*(T+1)+t]})
			}
		}
		if gz[t] < 0 {
			items = append(items, item{k: -1, benefit: -gz[t], cost: m.NewCost, upper: s.n[t]})
		}
		sort.Slice(items, func(a, b int) bool {
			return items[a].benefit/items[a].cost > items[b].benefit/items[b].cost
		})
		budget := m.capacity(t)
		for _, it := range items {
			if budget <= 0 {
				break
			}
			v := min(it.upper, budget/it.cost)
			budget -= v * it.cost
			if it.k < 0 {
				sz[t] = v
			} else {
				sx[it.k] = v
			}
		}
	}
}
