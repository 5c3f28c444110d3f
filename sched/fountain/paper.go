package fountain

import "math"

// PaperModel returns a model shaped like paper 001's runs (§5): 500 M pages
// spread equally over the buckets (Version 1: 2 M each of 255), a web that
// doubles in about 400 days, and the given number of periods (14 in the
// paper). The paper does not print its other parameters; ours are:
//
//   - a period is 2 days (a 28-day cycle, which with the growth rate gives
//     the paper's ≈ 5.22 × 10⁸ pages at the end);
//   - bucket i's pages change as a Poisson process whose mean interval runs
//     log-evenly from 7 days (bucket 0) to 20 years (the last bucket);
//     faster pages are left out, as the paper leaves out media sites. This
//     range gives the paper's qualitative results (strategy 2 crawls every
//     page once, strategy 1 skips the slowest half), with about twice its
//     obsolete counts;
//   - at the start, a page is stale with the probability it changed in half
//     a cycle (last crawled on average that long ago);
//   - a crawl costs 1 unit, old or new, and each period has 1/T of the
//     pages at the end of the cycle in units: enough to crawl every page
//     once per cycle (strategy 2's answer);
//   - all new pages arrive from outside (nconst), one period's growth is
//     also uncrawled at the start, and new pages join the buckets evenly.
func PaperModel(buckets, periods int) Model {
	const (
		total   = 500e6
		period  = 2.0    // days
		fastest = 7.0    // days
		slowest = 7300.0 // days
		doubles = 400.0  // days
	)
	growth := total * (math.Exp2(period/doubles) - 1)
	end := total * math.Exp2(period*float64(periods)/doubles)
	m := Model{
		Buckets:     make([]Bucket, buckets),
		Periods:     periods,
		Capacity:    []float64{end / float64(periods)},
		NewCost:     1,
		NewArrivals: growth,
		Uncrawled:   growth,
	}
	for i := range m.Buckets {
		frac := 0.0
		if buckets > 1 {
			frac = float64(i) / float64(buckets-1)
		}
		interval := fastest * math.Pow(slowest/fastest, frac)
		b := total / float64(buckets)
		m.Buckets[i] = Bucket{
			Pages:    b,
			Obsolete: b * (1 - math.Exp(-period*float64(periods)/2/interval)),
			Change:   1 - math.Exp(-period/interval),
			Cost:     1,
			NewShare: 1 / float64(buckets),
		}
	}
	return m
}
