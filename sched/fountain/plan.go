package fountain

// Plan is a solved cycle. Periods are indexed 0 … T−1 for the paper's
// 1 … T.
type Plan struct {
	// Crawls[i][t] is x_it, old pages of bucket i crawled in period t.
	Crawls [][]float64 `json:"crawls"`
	// New[t] is z_t, new pages crawled in period t.
	New []float64 `json:"new"`
	// Obsolete[i][t] is y_it, bucket i's obsolete pages at the end of
	// period t.
	Obsolete [][]float64 `json:"obsolete"`
	// Pages[i][t] is b_it, bucket i's pages at the end of period t, and
	// StartPages[i] is b_i0.
	Pages      [][]float64 `json:"pages"`
	StartPages []float64   `json:"start_pages"`
	// Uncrawled[t] is n_t at the end of period t.
	Uncrawled []float64 `json:"uncrawled"`
	// Used[t] is the crawl seconds the plan spends in period t (≤ C_t).
	Used []float64 `json:"used"`
	// Objective is the weighted obsolete count the plan reaches.
	Objective float64 `json:"objective"`
	// Iterations and Gap report the solver's work and its final
	// Frank–Wolfe gap (0 for a baseline).
	Iterations int     `json:"iterations"`
	Gap        float64 `json:"gap"`
}

// CrawlsPerPage returns how many times each page of bucket i is crawled in
// the cycle, Σ_t x_it / b_{i,t−1} (paper 001's Fig. 3).
func (p *Plan) CrawlsPerPage(i int) float64 {
	sum := 0.0
	for t, x := range p.Crawls[i] {
		b := p.startPages(i, t)
		if b > 0 {
			sum += x / b
		}
	}
	return sum
}

func (p *Plan) startPages(i, t int) float64 {
	if t == 0 {
		return p.StartPages[i]
	}
	return p.Pages[i][t-1]
}

// ObsoleteAt returns all obsolete pages (old stale ones plus new uncrawled
// ones) at the end of period t (paper 001's Fig. 4).
func (p *Plan) ObsoleteAt(t int) float64 {
	sum := p.Uncrawled[t]
	for i := range p.Obsolete {
		sum += p.Obsolete[i][t]
	}
	return sum
}

// TotalPages returns all pages in the repository at the end of the cycle.
func (p *Plan) TotalPages() float64 {
	sum := 0.0
	for i := range p.Pages {
		sum += p.Pages[i][len(p.Pages[i])-1]
	}
	return sum
}

// plan copies a solved trajectory into a Plan.
func (m *Model) plan(x, z []float64, s *state, obj float64) Plan {
	B, T := len(m.Buckets), m.Periods
	p := Plan{
		Crawls:     make([][]float64, B),
		New:        append([]float64(nil), z...),
		Obsolete:   make([][]float64, B),
		Pages:      make([][]float64, B),
		Uncrawled:  append([]float64(nil), s.n[1:]...),
		Used:       make([]float64, T),
		Objective:  obj,
		StartPages: make([]float64, B),
	}
	for i := range B {
		p.Crawls[i] = append([]float64(nil), x[i*T:(i+1)*T]...)
		p.Obsolete[i] = append([]float64(nil), s.y[i*(T+1)+1:(i+1)*(T+1)]...)
		p.Pages[i] = append([]float64(nil), s.b[i*(T+1)+1:(i+1)*(T+1)]...)
		p.StartPages[i] = s.b[i*(T+1)]
		for t, v := range p.Crawls[i] {
			p.Used[t] += v * m.Buckets[i].Cost
		}
	}
	for t, v := range z {
		p.Used[t] += v * m.NewCost
	}
	return p
}
