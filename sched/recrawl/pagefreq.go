package recrawl

import (
	"math"
	"math/bits"
)

// DefaultThreshold is the selective-incremental threshold a page starts
// with: an unchanged page is followed when 40 % of the pages it links to
// changed (paper 003 §3.3).
const DefaultThreshold = 0.4

// MaxLimit is the longest crawl history PageFreq keeps.
const MaxLimit = 64

// PageFreq is one page's adaptive crawl frequency (paper 003 §3.2) and its
// selective-incremental threshold (§3.3), counted in crawl cycles. The zero
// value is a page never crawled, due at once, with fr_max 1 and the
// default threshold.
type PageFreq struct {
	// FrMax is fr_max: the page is crawled every FrMax cycles.
	FrMax int `json:"fr_max"`
	// Fr is fr: cycles left until the next crawl.
	Fr int `json:"fr"`
	// Records counts the crawls in History, at most MaxLimit.
	Records int `json:"records"`
	// History has bit k set when the k-th latest crawl found the page
	// changed from the crawl before it.
	History uint64 `json:"history"`
	// Threshold is the share of linked pages that must have changed for
	// an unchanged page to be followed; 0 means DefaultThreshold.
	Threshold float64 `json:"threshold"`
}

// Tick advances one crawl cycle and reports whether the page is to be
// crawled in it.
func (p *PageFreq) Tick() bool {
	p.Fr--
	return p.Fr <= 0
}

// Crawled records a crawl that found the page changed or not, adapts FrMax
// from the last min(records, limit) crawls, and restarts the countdown.
//
// With x = min(records, limit) and c the changes among those x crawls, the
// paper sets b = x/c (b = x when c = 0) and fr_max' = ⌊(fr_max + b)/2⌋:
// a page that changed at every crawl moves towards every cycle, one that
// never changed towards every x cycles. Its worked example: fr_max 3, 10
// changes in the last 20 crawls → b = 2 → ⌊2.5⌋ = 2. limit is clamped to
// 1…MaxLimit; fr_max never goes below 1.
func (p *PageFreq) Crawled(changed bool, limit int) {
	limit = min(max(limit, 1), MaxLimit)
	p.History <<= 1
	if changed {
		p.History |= 1
	}
	p.Records = min(p.Records+1, MaxLimit)
	x := min(p.Records, limit)
	window := p.History
	if x < 64 {
		window &= 1<<x - 1
	}
	b := float64(x)
	if c := bits.OnesCount64(window); c > 0 {
		b = float64(x) / float64(c)
	}
	p.FrMax = max(1, int(math.Floor((float64(max(p.FrMax, 1))+b)/2)))
	p.Fr = p.FrMax
}

// Follow decides, for a page found unchanged, whether to fetch it again to
// reach the pages it links to, given the share of those pages that changed
// since the last crawl: yes when the share reaches the threshold. Then
// the threshold moves halfway towards the share seen, so a page whose
// links usually change a lot is followed only when they change more than
// usual. The paper says only that the threshold rises or falls "in
// proportion to the number of pages that have changed or not"; halfway is
// our reading, the same step fr_max takes.
func (p *PageFreq) Follow(linkedChanged float64) bool {
	if p.Threshold == 0 {
		p.Threshold = DefaultThreshold
	}
	s := min(max(linkedChanged, 0), 1)
	if math.IsNaN(linkedChanged) {
		s = 0
	}
	follow := s >= p.Threshold
	p.Threshold = (p.Threshold + s) / 2
	if p.Threshold == 0 {
		p.Threshold = math.SmallestNonzeroFloat64
	}
	return follow
}
