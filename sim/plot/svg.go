package plot

import (
	"fmt"
	"html"
	"math"
	"os"
	"slices"
	"strings"
)

// Series is one named line of a chart.
type Series struct {
	Name string
	X, Y []float64
}

// Chart is a line chart.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	// Step draws each series as a staircase (for CDFs).
	Step bool
	// Scatter draws points instead of lines.
	Scatter bool
	// YMin forces the lower end of the y axis (NaN = from the data, 0
	// included when all data are positive).
	YMin float64
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

const (
	width, height            = 720, 420
	left, right, top, bottom = 80, 180, 40, 55
	plotW, plotH             = width - left - right, height - top - bottom
)

// WriteSVG renders c to path.
func (c Chart) WriteSVG(path string) error {
	if err := os.WriteFile(path, []byte(c.SVG()), 0o644); err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	return nil
}

// SVG renders c as an SVG document.
func (c Chart) SVG() string {
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			if math.IsNaN(s.Y[i]) || math.IsInf(s.Y[i], 0) {
				continue
			}
			x0, x1 = math.Min(x0, s.X[i]), math.Max(x1, s.X[i])
			y0, y1 = math.Min(y0, s.Y[i]), math.Max(y1, s.Y[i])
		}
	}
	if math.IsInf(x0, 1) {
		x0, x1, y0, y1 = 0, 1, 0, 1
	}
	if !math.IsNaN(c.YMin) && y0 > 0 {
		y0 = 0
	}
	if !math.IsNaN(c.YMin) && c.YMin < y0 {
		y0 = c.YMin
	}
	if x1 == x0 {
		x1 = x0 + 1
	}
	if y1 == y0 {
		y1 = y0 + 1
	}
	xt, yt := ticks(x0, x1), ticks(y0, y1)
	x0, x1 = math.Min(x0, xt[0]), math.Max(x1, xt[len(xt)-1])
	y0, y1 = math.Min(y0, yt[0]), math.Max(y1, yt[len(yt)-1])
	px := func(x float64) float64 { return left + (x-x0)/(x1-x0)*plotW }
	py := func(y float64) float64 { return top + plotH - (y-y0)/(y1-y0)*plotH }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" text-anchor="middle">%s</text>`+"\n", left+plotW/2, html.EscapeString(c.Title))
	for _, t := range xt {
		if t < x0 || t > x1 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(t), top, px(t), top+plotH, px(t), top+plotH+16, label(t))
	}
	for _, t := range yt {
		if t < y0 || t > y1 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left, py(t), left+plotW, py(t), left-6, py(t)+4, label(t))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", left, top, plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+plotW/2, height-12, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(18,%d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+plotH/2, html.EscapeString(c.YLabel))
	for i, s := range c.Series {
		col := palette[i%len(palette)]
		var pts []string
		for j := range s.X {
			if math.IsNaN(s.Y[j]) || math.IsInf(s.Y[j], 0) {
				continue
			}
			if c.Step && len(pts) > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[j]), py(s.Y[j-1])))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[j]), py(s.Y[j])))
		}
		if c.Scatter {
			for _, p := range pts {
				xy := strings.SplitN(p, ",", 2)
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="1.6" fill="%s" fill-opacity="0.6"/>`, xy[0], xy[1], col)
			}
			b.WriteString("\n")
		} else {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6" points="%s"/>`+"\n", col, strings.Join(pts, " "))
		}
		ly := top + 14 + 18*i
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/><text x="%d" y="%d">%s</text>`+"\n", left+plotW+12, ly, left+plotW+32, ly, col, left+plotW+38, ly+4, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// ticks returns round tick values covering [lo, hi].
func ticks(lo, hi float64) []float64 {
	span := hi - lo
	step := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var out []float64
	for t := math.Floor(lo/step) * step; t <= hi+step*1e-9; t += step {
		out = append(out, t)
	}
	if out[len(out)-1] < hi {
		out = append(out, out[len(out)-1]+step)
	}
	return out
}

func label(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e6:
		return fmt.Sprintf("%gM", math.Round(v/1e4)/100)
	case a >= 1e4:
		return fmt.Sprintf("%gk", math.Round(v/10)/100)
	}
	return fmt.Sprintf("%g", math.Round(v*1000)/1000)
}

// CDF returns the empirical distribution of values as a series (values
// sorted on x, cumulative share on y), thinned to at most 2,000 points.
func CDF(name string, values []float64) Series {
	v := slices.Clone(values)
	slices.Sort(v)
	s := Series{Name: name}
	stride := max(1, len(v)/2000)
	for i := 0; i < len(v); i += stride {
		s.X = append(s.X, v[i])
		s.Y = append(s.Y, float64(i+1)/float64(len(v)))
	}
	if n := len(v); n > 0 && s.X[len(s.X)-1] != v[n-1] {
		s.X, s.Y = append(s.X, v[n-1]), append(s.Y, 1)
	}
	return s
}
