package zonecert

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrCorrupt is returned by Decode for bytes that are not a
	// certificate.
	ErrCorrupt = errors.New("zonecert: corrupt certificate")
	// ErrForged is returned for a certificate whose signature does not
	// verify under the manager's key: altered, or signed by another key.
	ErrForged = errors.New("zonecert: signature does not verify")
	// ErrExpired is returned for a certificate past its expiry.
	ErrExpired = errors.New("zonecert: certificate expired")
	// ErrStale is returned for a certificate older than one already seen
	// for the same zone or one overlapping it: a replay, or a copy that
	// arrived late.
	ErrStale = errors.New("zonecert: superseded by a newer certificate")
)
