package can

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrPeerExists is returned by Overlay.Join for a peer already present.
	ErrPeerExists = errors.New("can: peer already in the overlay")
	// ErrUnknownPeer is returned for a peer that is not in the overlay.
	ErrUnknownPeer = errors.New("can: unknown peer")
	// ErrDimension is returned for a point or zone of the wrong dimension.
	ErrDimension = errors.New("can: wrong dimension")
	// ErrNoRoute is returned when greedy routing cannot make progress, which
	// happens only with an inconsistent neighbour table.
	ErrNoRoute = errors.New("can: no route to target")
)
