package assign

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hivecrawl/hivecrawl/sim/plot"
)

// writeDataset draws the inputs, counterparts of paper 002's Figs 12–14:
// where hosts and crawlers sit in the CAN space, the relative error of the
// hosts' solved coordinates, and the page counts per host.
func (x *Experiment) writeDataset(dir string) (string, error) {
	w := x.Scenario.World
	res := slices.Clone(w.HostResidual)
	pages := make([]float64, len(x.Scenario.Pages))
	for i, p := range x.Scenario.Pages {
		pages[i] = math.Log10(float64(p))
	}
	var hx, hy, cx, cy []float64
	for _, p := range w.HostPoint {
		hx, hy = append(hx, p[0]), append(hy, p[1])
	}
	for _, p := range w.CrawlerPoint {
		cx, cy = append(cx, p[0]), append(cy, p[1])
	}
	charts := []struct {
		file string
		ch   plot.Chart
	}{
		{"fig13-coord-error-cdf.svg", plot.Chart{Title: "Hosts' solved coordinates: RMS relative error (Fig. 13)", XLabel: "relative error", YLabel: "share of hosts", Step: true, Series: []plot.Series{plot.CDF("hosts", res)}}},
		{"fig14-pages-cdf.svg", plot.Chart{Title: "Pages per host (Fig. 14)", XLabel: "log10 pages", YLabel: "share of hosts", Step: true, Series: []plot.Series{plot.CDF("hosts", pages)}}},
		{"fig12-can-space.svg", plot.Chart{Title: "Hosts and crawlers in the CAN space, dimensions 1–2 (Fig. 12b)", XLabel: "dimension 1", YLabel: "dimension 2", Scatter: true,
			Series: []plot.Series{{Name: "hosts", X: hx, Y: hy}, {Name: "crawlers", X: cx, Y: cy}}}},
	}
	for _, c := range charts {
		if err := c.ch.WriteSVG(filepath.Join(dir, c.file)); err != nil {
			return "", err
		}
	}
	slices.Sort(res)
	var b strings.Builder
	b.WriteString("### Inputs (paper's Figs 12–14)\n\n")
	fmt.Fprintf(&b, "- [Hosts and crawlers in the CAN space](fig12-can-space.svg).\n")
	fmt.Fprintf(&b, "- Relative error of the hosts' solved coordinates: median %.2f, 90th percentile %.2f ([CDF](fig13-coord-error-cdf.svg)).\n", res[len(res)/2], res[len(res)*9/10])
	sorted := slices.Clone(x.Scenario.Pages)
	slices.Sort(sorted)
	fmt.Fprintf(&b, "- Pages per host: median %d, largest %d ([CDF](fig14-pages-cdf.svg)).\n\n", sorted[len(sorted)/2], sorted[len(sorted)-1])
	return b.String(), nil
}
