package coord

import (
	"fmt"
	"slices"

	"github.com/hivecrawl/hivecrawl/p2p/can"
)

// DefaultTrim is λ, the percentage of nodes trimmed off each side of each
// dimension when training Bounds (paper 002 §3).
const DefaultTrim = 5.0

// Bounds is the box cut out of the coordinate space that maps onto the CAN
// space [0,1]^d.
type Bounds struct {
	Lo []float64 `json:"lo"`
	Hi []float64 `json:"hi"`
}

// TrainBounds computes Bounds from sample coordinates' Euclidean parts: in
// each dimension, after sorting, trimPct % of the values are cut off each
// side (trimPct < 0 means DefaultTrim; at least one value always remains).
func TrainBounds(sample []Coord, trimPct float64) (Bounds, error) {
	if len(sample) == 0 {
		return Bounds{}, fmt.Errorf("train CAN bounds: no coordinates")
	}
	if trimPct < 0 {
		trimPct = DefaultTrim
	}
	if trimPct >= 50 {
		return Bounds{}, fmt.Errorf("train CAN bounds: trim %v %% per side leaves nothing", trimPct)
	}
	d := len(sample[0].Vec)
	b := Bounds{Lo: make([]float64, d), Hi: make([]float64, d)}
	vals := make([]float64, len(sample))
	cut := int(float64(len(sample)) * trimPct / 100)
	for k := range d {
		for i, c := range sample {
			if len(c.Vec) != d {
				return Bounds{}, fmt.Errorf("train CAN bounds: coordinate %d has %d dimensions, want %d", i, len(c.Vec), d)
			}
			vals[i] = c.Vec[k]
		}
		slices.Sort(vals)
		b.Lo[k], b.Hi[k] = vals[cut], vals[len(vals)-1-cut]
	}
	return b, nil
}

// Map returns c's place in the CAN space: t_i = (c_i − l_i)/(h_i − l_i),
// with points outside the bounds clamped onto the boundary
// (t'_i = min(max(t_i, l_i), h_i) in coordinate terms). A dimension whose
// bounds coincide, or that c lacks, maps to 0.5.
func (b Bounds) Map(c Coord) can.Point {
	p := make(can.Point, len(b.Lo))
	for i := range p {
		w := b.Hi[i] - b.Lo[i]
		if !(w > 0) || i >= len(c.Vec) {
			p[i] = 0.5
			continue
		}
		p[i] = (c.Vec[i] - b.Lo[i]) / w
	}
	return can.Clamp(p)
}
