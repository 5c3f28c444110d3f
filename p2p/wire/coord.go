package wire

import "github.com/hivecrawl/hivecrawl/p2p/coord"

// CoordinateOf returns c as the overlay's messages carry it.
func CoordinateOf(c coord.Coord) *Coordinate {
	return &Coordinate{Vec: append([]float64(nil), c.Vec...), Height: c.Height, Adjustment: c.Adjustment, Error: c.Error}
}

// Coord returns the coordinate a message carried, validated by the
// message's Validate.
func (c *Coordinate) Coord() coord.Coord {
	return coord.Coord{Vec: c.Vec, Height: c.Height, Adjustment: c.Adjustment, Error: c.Error}
}
