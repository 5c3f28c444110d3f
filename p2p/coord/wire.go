package coord

import "github.com/hivecrawl/hivecrawl/p2p/wire"

// Wire returns c as the overlay's messages carry it.
func (c Coord) Wire() *wire.Coordinate {
	return &wire.Coordinate{Vec: append([]float64(nil), c.Vec...), Height: c.Height, Adjustment: c.Adjustment, Error: c.Error}
}

// FromWire returns the coordinate a message carried, validated by the
// message's Validate.
func FromWire(w *wire.Coordinate) Coord {
	return Coord{Vec: w.Vec, Height: w.Height, Adjustment: w.Adjustment, Error: w.Error}
}
