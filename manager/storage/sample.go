package storage

import "math"

// The sampling rule. A result of N pages of which K are forged is checked
// by re-fetching n of its pages drawn without replacement (the pages
// fetched whole and those reported unchanged apart, each by this rule:
// chooseCheck); the check misses every forged page with the
// hypergeometric probability
//
//	miss(N, K, n) = C(N-K, n) / C(N, n) = Π_{i<n} (N-K-i) / (N-i)
//
// and one page found forged fails the whole result. A peer without a
// record is checked with the smallest n for which 1 - miss(N, K, n)
// reaches Validation.Detect when K = ⌈Forged × N⌉ (at least one page):
// 20 pages of 100, 22 of any larger result, and the whole result below
// 10 pages. A peer with a record is checked with ⌊Budget × N⌋ pages (at
// least one, at most the new peer's n), so its checks cost at most
// Budget of its pages, apart from results under 1/Budget pages, which
// cost one page each. Since n ≥ 1, 1 - miss(N, K, n) ≥ K/N: a check
// catches a result at least as often as the share of it that is forged,
// so forging never earns more than a caught result costs
// (docs/developer/validation.md works the game out).

// missProbability is the probability that n pages drawn without
// replacement from a result of pages pages, forged of them forged,
// include none of the forged ones.
func missProbability(pages, forged, n int) float64 {
	if forged <= 0 {
		return 1
	}
	p := 1.0
	for i := range n {
		if pages-forged-i <= 0 {
			return 0
		}
		p *= float64(pages-forged-i) / float64(pages-i)
	}
	return p
}

// forgedPages is how many of a result's pages are forged when a share of
// them is: at least one.
func forgedPages(pages int, share float64) int {
	// The epsilon keeps 0.1 × 30 at 3, not 4.
	return max(1, int(math.Ceil(share*float64(pages)-1e-9)))
}

// detectSize returns the smallest sample of a result of pages pages that
// finds one of its forged pages with probability at least detect when
// share of them are forged; every page when none is enough.
func detectSize(pages int, share, detect float64) int {
	k := forgedPages(pages, share)
	for n := 1; n < pages; n++ {
		if 1-missProbability(pages, k, n) >= detect-1e-12 {
			return n
		}
	}
	return pages
}

// sampleSize returns how many of a result's pages are re-fetched to check
// it: as many as Detect asks of a peer without a record, fewer for one
// with a record, within Budget of its pages.
func (v *Validation) sampleSize(pages int, recorded bool) int {
	if pages <= 0 {
		return 0
	}
	n := detectSize(pages, v.Forged, v.Detect)
	if recorded {
		n = min(n, max(1, int(v.Budget*float64(pages)+1e-9)))
	}
	return n
}

// samplePages draws n of pages without replacement, each subset equally
// likely (a partial Fisher–Yates shuffle driven by rnd, uniform in
// [0, 1)); pages is reordered.
func samplePages[T any](pages []T, n int, rnd func() float64) []T {
	n = min(n, len(pages))
	for i := range n {
		j := i + int(rnd()*float64(len(pages)-i))
		j = min(j, len(pages)-1)
		pages[i], pages[j] = pages[j], pages[i]
	}
	return pages[:n]
}
