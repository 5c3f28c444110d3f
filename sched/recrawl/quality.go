package recrawl

import (
	"math"
	"time"
)

// Quality returns one channel's update quality (design.md §9, reconstructing
// paper 000 §4.1): its actual update rate over the expected one,
// q = (updates / span) · change. 1 means it was updated as often as it
// changes; above 1, more often.
func Quality(updates int, change, span time.Duration) float64 {
	if span <= 0 {
		return 0
	}
	return float64(updates) / float64(span) * float64(change)
}

// MeanQuality returns the unweighted and weighted means of the channels'
// qualities over span, updates[i] being channel i's update count. The
// weight of group p of k is 2^(k−1−p): 1 for the slowest group, 16 for the
// fastest of five, so that with every q = 1 and paper 000's group shares
// the weighted mean is ≈ 4.8, as its Table 4's FIXED column.
func MeanQuality(updates []int, channels []Channel, k int, span time.Duration) (unweighted, weighted float64) {
	if len(channels) == 0 {
		return 0, 0
	}
	for i, c := range channels {
		q := Quality(updates[i], c.ChangeInterval, span)
		unweighted += q
		weighted += math.Exp2(float64(k-1-c.Group)) * q
	}
	n := float64(len(channels))
	return unweighted / n, weighted / n
}
