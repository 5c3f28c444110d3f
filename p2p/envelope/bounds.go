package envelope

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/p2p/coord"
)

// BoundsKind is the kind of the manager-signed CAN-space bounds: the box
// of network coordinates that maps onto the CAN space, trained from the
// members' coordinates and numbered by epoch, so a member keeps the latest
// whatever order copies reach it in.
var BoundsKind = Kind{
	Domain:      "hivecrawl-bounds",
	PayloadType: []byte("/hivecrawl/bounds/json/1"),
}

// Limits of a bounds record: coordinates are milliseconds, and no network
// spans more than a few seconds.
const (
	maxBoundsDim   = 8
	maxBoundsValue = 10_000
)

// Bounds is the payload of a bounds record.
type Bounds struct {
	Epoch  uint64       `json:"epoch"`
	Bounds coord.Bounds `json:"bounds"`
}

// Validate checks that b is a usable box.
func (b Bounds) Validate() error {
	lo, hi := b.Bounds.Lo, b.Bounds.Hi
	if len(lo) == 0 || len(lo) > maxBoundsDim || len(hi) != len(lo) {
		return fmt.Errorf("bounds of %d/%d dimensions", len(lo), len(hi))
	}
	for i := range lo {
		if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) || math.Abs(lo[i]) > maxBoundsValue || math.Abs(hi[i]) > maxBoundsValue || !(lo[i] < hi[i]) {
			return fmt.Errorf("bounds [%v, %v] in dimension %d", lo[i], hi[i], i)
		}
	}
	return nil
}

// SealBounds signs b with the manager's key.
func SealBounds(b Bounds, key crypto.PrivKey) ([]byte, error) {
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("seal bounds: %w", err)
	}
	payload, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("seal bounds: %w", err)
	}
	return SealRecord(BoundsKind, payload, key)
}

// OpenBounds verifies that data is a bounds record signed by the
// manager's key and returns it, validated.
func OpenBounds(data []byte, manager crypto.PubKey) (Bounds, error) {
	return OpenRecord(data, BoundsKind, manager, func(p []byte) (Bounds, error) {
		var b Bounds
		if err := json.Unmarshal(p, &b); err != nil {
			return b, err
		}
		return b, b.Validate()
	})
}
