package plot

import (
	"math"
	"strings"
	"testing"
)

func TestChartSVG(t *testing.T) {
	c := Chart{Title: "a < b", XLabel: "step", YLabel: "tasks", YMin: math.NaN(), Series: []Series{
		{Name: "FIXED", X: []float64{0, 10, 20}, Y: []float64{5, 7, 9}},
		{Name: "IIR", X: []float64{0, 10, 20}, Y: []float64{1, math.NaN(), 3}},
	}}
	s := c.SVG()
	if n := strings.Count(s, "<polyline"); n != 2 {
		t.Fatalf("%d polylines, want 2", n)
	}
	if !strings.Contains(s, "a &lt; b") || !strings.Contains(s, ">IIR<") {
		t.Fatalf("title or legend missing:\n%s", s)
	}
	if strings.Contains(s, "NaN") {
		t.Fatal("NaN leaked into the SVG")
	}
}

func TestTicksCover(t *testing.T) {
	for _, r := range [][2]float64{{0, 1}, {3, 97}, {-5, 1234}, {0.001, 0.0042}} {
		ts := ticks(r[0], r[1])
		if ts[0] > r[0] || ts[len(ts)-1] < r[1] || len(ts) > 12 {
			t.Fatalf("ticks(%v) = %v", r, ts)
		}
	}
}

func TestCDFAndScatter(t *testing.T) {
	s := CDF("x", []float64{3, 1, 2})
	if len(s.X) != 3 || s.X[0] != 1 || s.X[2] != 3 || s.Y[2] != 1 {
		t.Fatalf("CDF = %+v", s)
	}
	svg := Chart{Scatter: true, Series: []Series{s}}.SVG()
	if n := strings.Count(svg, "<circle"); n != 3 {
		t.Fatalf("%d circles, want 3", n)
	}
}
