package indexnow

import "errors"

// Sentinel errors a submission's checks wrap, one per answer of the
// protocol.
var (
	// ErrInvalid: the submission is malformed (400 Bad Request): no key
	// or a key outside 8–128 characters of [a-zA-Z0-9-], no URL, too many
	// URLs, a URL that does not parse, a body that is not the protocol's
	// JSON.
	ErrInvalid = errors.New("invalid IndexNow submission")
	// ErrOffScope: a URL is not on the submission's host or not inside
	// the key's directory, or the key file is on another host (422
	// Unprocessable Entity).
	ErrOffScope = errors.New("URL outside the host or the key's scope")
	// ErrKey: the key file was not found, could not be fetched, or does
	// not hold the key (403 Forbidden).
	ErrKey = errors.New("key not valid")
)
