package can

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrPeerExists is returned by Map.Join for a peer already holding zones.
	ErrPeerExists = errors.New("can: peer already in the map")
	// ErrUnknownPeer is returned for a peer that holds no zone.
	ErrUnknownPeer = errors.New("can: unknown peer")
	// ErrDimension is returned for a point or zone of the wrong dimension.
	ErrDimension = errors.New("can: wrong dimension")
	// ErrNoRoute is returned when greedy routing cannot make progress, which
	// happens only with an inconsistent neighbour table.
	ErrNoRoute = errors.New("can: no route to target")
	// ErrNoLeaf is returned by Map.Certify for a path that is not a leaf.
	ErrNoLeaf = errors.New("can: no such leaf")
	// ErrTooDeep is returned for a join that would split deeper than
	// DepthLimit: too many peers at one point.
	ErrTooDeep = errors.New("can: zone too deep to split")
	// ErrExpired is returned by Map.Renew for a holder whose certificates
	// expired; it must join again.
	ErrExpired = errors.New("can: certificates expired")
	// ErrCorrupt is returned by Map.UnmarshalBinary for bytes that are not
	// an encoded map.
	ErrCorrupt = errors.New("can: corrupt map encoding")
)
