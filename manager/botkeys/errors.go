package botkeys

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no key with that keyid, and no peer with that ID.
	ErrNotFound = errors.New("no such key or peer")
	// ErrWithdrawn: the key was withdrawn and cannot be certified again.
	ErrWithdrawn = errors.New("key was withdrawn")
	// ErrOtherPeer: the key is already certified for another peer.
	ErrOtherPeer = errors.New("key is certified for another peer")
	// ErrBadKey: not an Ed25519 public key, or no peer ID.
	ErrBadKey = errors.New("bad key")
)
