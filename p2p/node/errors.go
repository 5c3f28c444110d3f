package node

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrNotJoined is returned by operations that need zones before Join or
	// Start succeeded, or after Leave.
	ErrNotJoined = errors.New("node has not joined the overlay")
	// ErrLeaving is returned to peers that ask a leaving node for anything.
	ErrLeaving = errors.New("node is leaving the overlay")
	// ErrJoinFailed is returned when no owner could be reached for the
	// join point.
	ErrJoinFailed = errors.New("join failed")
)
