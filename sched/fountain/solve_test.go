package fountain

import (
	"math"
	"testing"
)

// one returns a single-period model of the given buckets with no new pages.
func one(periods int, capacity float64, buckets ...Bucket) Model {
	return Model{Buckets: buckets, Periods: periods, Capacity: []float64{capacity}, NewCost: 1}
}

func TestSolveHandComputed(t *testing.T) {
	tests := []struct {
		name  string
		m     Model
		w     Weights
		want  float64
		crawl [][]float64 // expected x_it, nil = not checked
		newZ  []float64
	}{
		{
			// y = (1 − x/100)·0.5·100, budget 30 → x = 30, y = 0.7·50 = 35.
			name:  "one bucket spends the budget",
			m:     one(1, 30, Bucket{Pages: 100, Change: 0.5, Cost: 1}),
			w:     Weights{1},
			want:  35,
			crawl: [][]float64{{30}},
		},
		{
			// Per page crawled, A saves 0.5 obsolete pages, B 0.2: all 100
			// of A, then 20 of B: y_A = 0, y_B = (1 − 0.2)·20 = 16.
			name:  "higher change rate first",
			m:     one(1, 120, Bucket{Pages: 100, Change: 0.5, Cost: 1}, Bucket{Pages: 100, Change: 0.2, Cost: 1}),
			w:     Weights{1},
			want:  16,
			crawl: [][]float64{{100}, {20}},
		},
		{
			// Per second A saves 0.5/2 = 0.25, B 0.3/1: B fully (100 s),
			// nothing left for A: y_A = 50, y_B = 0. (All on A: 25 + 30 = 55.)
			name:  "benefit per second, not per page",
			m:     one(1, 100, Bucket{Pages: 100, Change: 0.5, Cost: 2}, Bucket{Pages: 100, Change: 0.3, Cost: 1}),
			w:     Weights{1},
			want:  50,
			crawl: [][]float64{{0}, {100}},
		},
		{
			// A new page crawled saves 1 obsolete page, an old one 0.2:
			// z = 50 (all), x = 10: y = 0.9·20 = 18, n = 0.
			name: "new pages before slow old ones",
			m: Model{Buckets: []Bucket{{Pages: 100, Change: 0.2, Cost: 1, NewShare: 1}},
				Periods: 1, Capacity: []float64{60}, NewCost: 1, Uncrawled: 50},
			w:     Weights{1},
			want:  18,
			crawl: [][]float64{{10}},
			newZ:  []float64{50},
		},
		{
			// Two periods, 50 crawls each, a = 0.5, only the end counts:
			// y1 = (1 − x1/100)·50, y2 = (1 − x2/100)(0.5·y1 + 50). Both
			// decrease with crawling: x1 = x2 = 50 → y1 = 25, y2 = 31.25.
			name:  "last period only",
			m:     one(2, 50, Bucket{Pages: 100, Change: 0.5, Cost: 1}),
			w:     LastOnly(2),
			want:  31.25,
			crawl: [][]float64{{50, 50}},
		},
		{
			// Same plan, weights ½, ½: 0.5·25 + 0.5·31.25 = 28.125.
			name: "equal weights",
			m:    one(2, 50, Bucket{Pages: 100, Change: 0.5, Cost: 1}),
			w:    Equal(2),
			want: 28.125,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Solve(tc.m, tc.w, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(p.Objective-tc.want) > 1e-6*math.Max(1, tc.want) {
				t.Errorf("objective %g, want %g (crawls %v, new %v)", p.Objective, tc.want, p.Crawls, p.New)
			}
			for i, row := range tc.crawl {
				for tt, want := range row {
					if math.Abs(p.Crawls[i][tt]-want) > 1e-4 {
						t.Errorf("x[%d][%d] = %g, want %g", i, tt, p.Crawls[i][tt], want)
					}
				}
			}
			for tt, want := range tc.newZ {
				if math.Abs(p.New[tt]-want) > 1e-4 {
					t.Errorf("z[%d] = %g, want %g", tt, p.New[tt], want)
				}
			}
		})
	}
}

func TestGradientMatchesFiniteDifferences(t *testing.T) {
	m := Model{
		Buckets: []Bucket{
			{Pages: 100, Obsolete: 30, Change: 0.4, Cost: 1, FindsNew: 0.1, NewShare: 0.5},
			{Pages: 200, Obsolete: 10, Change: 0.1, Cost: 2, FindsNew: 0.05, NewShare: 0.3},
			{Pages: 50, Obsolete: 45, Change: 0.9, Cost: 1, FindsNew: 0.2, NewShare: 0.2},
		},
		Periods: 3, Capacity: []float64{1000}, NewCost: 1.5,
		NewFindsNew: 0.3, NewArrivals: 20, Uncrawled: 40,
	}
	w := Weights{0.2, 0.3, 0.5}
	B, T := len(m.Buckets), m.Periods
	x := []float64{10, 20, 5, 30, 40, 50, 10, 5, 20}
	z := []float64{10, 15, 12}
	s := newState(B, T)
	m.run(w, append([]float64(nil), x...), append([]float64(nil), z...), s)
	gx, gz := make([]float64, B*T), make([]float64, T)
	m.gradient(w, x, s, gx, gz)
	f := func(x, z []float64) float64 {
		return m.run(w, append([]float64(nil), x...), append([]float64(nil), z...), newState(B, T))
	}
	const h = 1e-4
	check := func(name string, v []float64, k int, got float64) {
		orig := v[k]
		v[k] = orig + h
		up := f(x, z)
		v[k] = orig - h
		down := f(x, z)
		v[k] = orig
		want := (up - down) / (2 * h)
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("∂/∂%s[%d] = %.9g, finite difference %.9g", name, k, got, want)
		}
	}
	for k := range x {
		check("x", x, k, gx[k])
	}
	for k := range z {
		check("z", z, k, gz[k])
	}
}

func TestPaperStrategies(t *testing.T) {
	const buckets, periods = 40, 14
	m := PaperModel(buckets, periods)
	plans := map[string]Plan{}
	for _, tc := range []struct {
		name string
		w    Weights
	}{
		{"equal", Equal(periods)},
		{"last only", LastOnly(periods)},
		{"last high", LastHigh(periods)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Solve(m, tc.w, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkFeasible(t, m, p)
			// The reported objective is the plan's.
			obj := 0.0
			for tt := range periods {
				obj += tc.w[tt] * p.ObsoleteAt(tt)
			}
			if math.Abs(obj-p.Objective) > 1e-9*obj {
				t.Errorf("objective %g, recomputed from the plan %g", p.Objective, obj)
			}
			for name, base := range map[string]func(Model, Weights) (Plan, error){"uniform": Uniform, "proportional": Proportional} {
				b, err := base(m, tc.w)
				if err != nil {
					t.Fatal(err)
				}
				checkFeasible(t, m, b)
				if p.Objective > b.Objective {
					t.Errorf("objective %g worse than the %s baseline's %g", p.Objective, name, b.Objective)
				}
			}
			plans[tc.name] = p
		})
	}
	eq, last, high := plans["equal"], plans["last only"], plans["last high"]
	if len(plans) != 3 {
		t.Fatal("a strategy failed")
	}
	// Paper 001 Table 3 and Fig. 4: at the end of the cycle strategy 2 has
	// the fewest obsolete pages, then 3, then 1; before the end strategy 1
	// has fewer than strategy 2.
	end := periods - 1
	if !(last.ObsoleteAt(end) <= high.ObsoleteAt(end) && high.ObsoleteAt(end) < eq.ObsoleteAt(end)) {
		t.Errorf("obsolete at end: last only %g, last high %g, equal %g; want increasing",
			last.ObsoleteAt(end), high.ObsoleteAt(end), eq.ObsoleteAt(end))
	}
	meanBefore := func(p Plan) float64 {
		sum := 0.0
		for tt := range end {
			sum += p.ObsoleteAt(tt)
		}
		return sum / float64(end)
	}
	if meanBefore(eq) >= meanBefore(last) {
		t.Errorf("mean obsolete before the end: equal %g, last only %g; want equal lower", meanBefore(eq), meanBefore(last))
	}
	// Fig. 3: strategy 1 crawls the fast pages several times and skips the
	// slowest ones; strategy 2 crawls most pages once; strategy 3 crawls
	// the fastest 18 % more than once.
	mean := func(p Plan, from, to int) float64 {
		sum := 0.0
		for i := from; i < to; i++ {
			sum += p.CrawlsPerPage(i)
		}
		return sum / float64(to-from)
	}
	q := buckets / 4
	if got := mean(eq, 0, q); got < 2.5 {
		t.Errorf("equal: fastest quarter crawled %.2f times per cycle, want > 2.5", got)
	}
	if got := mean(eq, buckets-q, buckets); got > 0.01 {
		t.Errorf("equal: slowest quarter crawled %.2f times per cycle, want none", got)
	}
	once := 0
	for i := range buckets {
		if math.Abs(last.CrawlsPerPage(i)-1) < 0.05 {
			once++
		}
	}
	if once < buckets*6/10 {
		t.Errorf("last only: %d of %d buckets crawled once per cycle, want ≥ 60 %%", once, buckets)
	}
	for i := range buckets * 18 / 100 {
		if c := high.CrawlsPerPage(i); c <= 1 {
			t.Errorf("last high: bucket %d crawled %.2f times, want more than once", i, c)
		}
	}
}

// checkFeasible asserts every constraint of the model on p.
func checkFeasible(t *testing.T, m Model, p Plan) {
	t.Helper()
	const eps = 1e-9
	for tt := range m.Periods {
		if p.Used[tt] > m.capacity(tt)*(1+eps) {
			t.Errorf("period %d uses %g of %g", tt, p.Used[tt], m.capacity(tt))
		}
		used := p.New[tt] * m.NewCost
		for i := range m.Buckets {
			x := p.Crawls[i][tt]
			used += x * m.Buckets[i].Cost
			if b := p.startPages(i, tt); x < 0 || x > b*(1+eps) {
				t.Errorf("x[%d][%d] = %g outside [0, %g]", i, tt, x, b)
			}
		}
		if math.Abs(used-p.Used[tt]) > eps*math.Max(1, used) {
			t.Errorf("period %d: Used %g, crawls cost %g", tt, p.Used[tt], used)
		}
		n := m.Uncrawled
		if tt > 0 {
			n = p.Uncrawled[tt-1]
		}
		if p.New[tt] < 0 || p.New[tt] > n*(1+eps) {
			t.Errorf("z[%d] = %g outside [0, %g]", tt, p.New[tt], n)
		}
	}
}

func TestBadModel(t *testing.T) {
	good := one(2, 10, Bucket{Pages: 10, Change: 0.5, Cost: 1})
	tests := []struct {
		name string
		edit func(m *Model) Weights
	}{
		{"no buckets", func(m *Model) Weights { m.Buckets = nil; return Equal(2) }},
		{"no periods", func(m *Model) Weights { m.Periods = 0; return Weights{} }},
		{"capacities mismatch", func(m *Model) Weights { m.Capacity = []float64{1, 2, 3}; return Equal(2) }},
		{"weights mismatch", func(m *Model) Weights { return Equal(3) }},
		{"negative weight", func(m *Model) Weights { return Weights{-1, 1} }},
		{"change above 1", func(m *Model) Weights { m.Buckets[0].Change = 2; return Equal(2) }},
		{"zero cost", func(m *Model) Weights { m.Buckets[0].Cost = 0; return Equal(2) }},
		{"more obsolete than pages", func(m *Model) Weights { m.Buckets[0].Obsolete = 11; return Equal(2) }},
		{"NaN capacity", func(m *Model) Weights { m.Capacity = []float64{math.NaN()}; return Equal(2) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := good
			m.Buckets = append([]Bucket(nil), good.Buckets...)
			w := tc.edit(&m)
			if _, err := Solve(m, w, Options{}); err == nil {
				t.Error("no error")
			}
		})
	}
}

func BenchmarkSolvePaper(b *testing.B) {
	m := PaperModel(255, 14)
	for _, tc := range []struct {
		name string
		w    Weights
	}{{"equal", Equal(14)}, {"last-only", LastOnly(14)}, {"last-high", LastHigh(14)}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				if _, err := Solve(m, tc.w, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
