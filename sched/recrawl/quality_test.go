package recrawl

import (
	"math"
	"testing"
	"time"
)

func TestMeanQuality(t *testing.T) {
	chans := paperChannels()
	span := 90000 * time.Minute
	tests := []struct {
		name     string
		perGroup func(p int) float64 // updates per change interval
		unw, w   float64
	}{
		// Every channel updated once per change interval: q = 1; weighted
		// = Σ share·2^(4−p) = 0.034·16 + 0.247·8 + 0.447·4 + 0.239·2 +
		// 0.033·1 = 4.819.
		{name: "every change caught", perGroup: func(int) float64 { return 1 }, unw: 1, w: 4.819},
		// Only the fastest group, twice per change: unweighted 0.034·2 =
		// 0.068, weighted 0.034·16·2 = 1.088.
		{name: "fastest group only", perGroup: func(p int) float64 {
			if p == 0 {
				return 2
			}
			return 0
		}, unw: 0.068, w: 1.088},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			updates := make([]int, len(chans))
			for i, c := range chans {
				updates[i] = int(math.Round(tc.perGroup(c.Group) * float64(span) / float64(c.ChangeInterval)))
			}
			u, w := MeanQuality(updates, chans, 5, span)
			if math.Abs(u-tc.unw) > 0.002 || math.Abs(w-tc.w) > 0.01 {
				t.Errorf("quality %.4f / weighted %.4f, want %.4f / %.4f", u, w, tc.unw, tc.w)
			}
		})
	}
}
