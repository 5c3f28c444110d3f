package strategies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hivecrawl/hivecrawl/sim/plot"
)

// writeDataset draws the scenario's inputs, the counterpart of paper 000's
// Fig. 3 (latencies, bandwidths, page numbers, channels per group), and
// returns its summary section.
func (x *Experiment) writeDataset(dir string) (string, error) {
	sc := x.Scenario
	r := rand.New(rand.NewPCG(sc.Seed, 0x64617461))
	rtts := make([]float64, 20000)
	for i := range rtts {
		rtts[i] = sc.World.RTT(r.IntN(len(sc.Bandwidth)), r.IntN(len(sc.Pages)))
	}
	pages := make([]float64, len(sc.Pages))
	for i, p := range sc.Pages {
		pages[i] = math.Log10(float64(p))
	}
	for _, c := range []struct {
		file, title, x string
		v              []float64
	}{
		{"fig3-rtt-cdf.svg", "Crawler–host RTT, 20,000 random pairs (Fig. 3)", "RTT (ms)", rtts},
		{"fig3-pages-cdf.svg", "Pages per channel (Fig. 3)", "log10 pages", pages},
	} {
		ch := plot.Chart{Title: c.title, XLabel: c.x, YLabel: "share", Step: true, Series: []plot.Series{plot.CDF("CDF", c.v)}}
		if err := ch.WriteSVG(filepath.Join(dir, c.file)); err != nil {
			return "", err
		}
	}
	slices.Sort(rtts)
	bw := map[float64]int{}
	for _, v := range sc.Bandwidth {
		bw[v]++
	}
	counts := x.counts()
	var b strings.Builder
	b.WriteString("### Inputs (paper's Fig. 3)\n\n")
	fmt.Fprintf(&b, "- Crawler–host RTT over 20,000 random pairs: median %.0f ms, 90th percentile %.0f ms ([CDF](fig3-rtt-cdf.svg)).\n", rtts[len(rtts)/2], rtts[len(rtts)*9/10])
	fmt.Fprintf(&b, "- Bandwidth: %d crawlers at 512 Kb/s, %d at 1 Mb/s, %d at 2 Mb/s.\n", bw[0.5], bw[1], bw[2])
	total := 0
	for _, p := range sc.Pages {
		total += int(p)
	}
	fmt.Fprintf(&b, "- Pages per channel: mean %.0f, median %d ([CDF](fig3-pages-cdf.svg)).\n", float64(total)/float64(len(sc.Pages)), medianPages(sc.Pages))
	fmt.Fprintf(&b, "- Channels per group, rank 4 (60 min) to rank 0 (960 min): %v.\n\n", counts)
	return b.String(), nil
}

func medianPages(p []int32) int {
	v := slices.Clone(p)
	slices.Sort(v)
	return int(v[len(v)/2])
}
