package recrawl

import (
	"math"
	"sort"
	"time"
)

// ChangeEstimate accumulates crawl feedback about one channel and estimates
// its change interval. Each crawl compares the pages it found with the
// previous crawl's digests: pages compared, pages changed, and the time
// since that previous crawl.
//
// Pages are treated as independent Poisson processes sharing the channel's
// change rate λ, observed once per crawl as "changed or not", which is the
// setting of Cho and Garcia-Molina's improved estimator ("Estimating
// frequency of change", ACM TOIT 2003):
//
//	λ̂ = −log((n − X + 0.5) / (n + 0.5)) / I
//
// with n observations, X of them changed and I the access interval. It
// stays finite when every page changed (X = n), unlike the naive
// −log(1 − X/n), and is nearly unbiased for n ≥ 10. Crawls at uneven gaps
// use I = the observations' mean gap, an approximation that is exact for
// regular recrawls.
type ChangeEstimate struct {
	// Observations is n: page comparisons made.
	Observations int `json:"observations"`
	// Changes is X: comparisons that found the page changed.
	Changes int `json:"changes"`
	// Span is Σ gap over all observations.
	Span time.Duration `json:"span"`
}

// Observe records one crawl: pages compared with the previous crawl, of
// which changed differed, gap after that previous crawl. Nonsensical input
// (negative counts, changed > pages, non-positive gap) is ignored.
func (e *ChangeEstimate) Observe(pages, changed int, gap time.Duration) {
	if pages <= 0 || changed < 0 || changed > pages || gap <= 0 {
		return
	}
	e.Observations += pages
	e.Changes += changed
	e.Span += time.Duration(pages) * gap
}

// Interval returns the estimated change interval 1/λ̂, and false when there
// is no observation or no change was seen (the interval is then longer than
// anything observed, and the caller keeps its prior).
func (e ChangeEstimate) Interval() (time.Duration, bool) {
	n, x := float64(e.Observations), float64(e.Changes)
	if n <= 0 || x <= 0 || e.Span <= 0 {
		return 0, false
	}
	gap := float64(e.Span) / n
	lambda := -math.Log((n-x+0.5)/(n+0.5)) / gap
	if lambda <= 0 || math.IsNaN(lambda) {
		return 0, false
	}
	v := 1 / lambda
	if v >= math.MaxInt64 {
		return 0, false
	}
	return time.Duration(v), true
}

// Rank sorts channels into k priority groups by change interval, fastest
// first, on a logarithmic scale: the range from the shortest to the longest
// interval is cut into k bins of equal log-width, so channels whose
// intervals double from group to group (60, 120, … 960 min) land one group
// apart, and the groups' sizes follow the data rather than being equal. A
// non-positive interval (never estimated) goes to the slowest group. k < 1
// is taken as 1.
func Rank(intervals []time.Duration, k int) []int {
	k = max(k, 1)
	groups := make([]int, len(intervals))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range intervals {
		if v > 0 {
			lo = min(lo, math.Log(float64(v)))
			hi = max(hi, math.Log(float64(v)))
		}
	}
	width := (hi - lo) / float64(k)
	for i, v := range intervals {
		switch {
		case v <= 0:
			groups[i] = k - 1
		case width <= 0:
			groups[i] = 0
		default:
			groups[i] = min(int((math.Log(float64(v))-lo)/width), k-1)
		}
	}
	return groups
}

// RankEqual sorts channels into k groups of (nearly) equal size by change
// interval, fastest first; ties keep their input order. Use it when the
// intervals are so spread that Rank would leave groups empty.
func RankEqual(intervals []time.Duration, k int) []int {
	k = max(k, 1)
	order := make([]int, len(intervals))
	for i := range order {
		order[i] = i
	}
	key := func(i int) time.Duration {
		if intervals[i] <= 0 {
			return math.MaxInt64
		}
		return intervals[i]
	}
	sort.SliceStable(order, func(a, b int) bool { return key(order[a]) < key(order[b]) })
	groups := make([]int, len(intervals))
	for pos, i := range order {
		groups[i] = pos * k / len(order)
	}
	return groups
}
