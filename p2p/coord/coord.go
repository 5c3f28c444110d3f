package coord

import (
	"fmt"
	"math"
)

// Coord is a network coordinate in milliseconds (see the package doc).
type Coord struct {
	Vec        []float64 `json:"vec"`
	Height     float64   `json:"height"`
	Adjustment float64   `json:"adjustment"`
	// Error is Vivaldi's confidence in the coordinate: 0 is certain, 1.5 is
	// serf's maximum.
	Error float64 `json:"error"`
}

// DistanceTo returns the estimated RTT in milliseconds between c and o, as
// serf estimates it.
func (c Coord) DistanceTo(o Coord) float64 {
	d := euclid(c.Vec, o.Vec) + c.Height + o.Height
	if adj := d + c.Adjustment + o.Adjustment; adj > 0 {
		d = adj
	}
	return d
}

// Validate checks a coordinate received from another peer: dimension d,
// every component finite, a non-negative height.
func (c Coord) Validate(d int) error {
	if len(c.Vec) != d {
		return fmt.Errorf("coordinate has %d dimensions, want %d", len(c.Vec), d)
	}
	for i, v := range c.Vec {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("coordinate component %d is %v", i, v)
		}
	}
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"height", c.Height}, {"adjustment", c.Adjustment}, {"error", c.Error}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("coordinate %s is %v", f.name, f.v)
		}
	}
	if c.Height < 0 {
		return fmt.Errorf("coordinate height %v is negative", c.Height)
	}
	return nil
}

// Clone returns a deep copy of c.
func (c Coord) Clone() Coord {
	c.Vec = append([]float64(nil), c.Vec...)
	return c
}

func euclid(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}
