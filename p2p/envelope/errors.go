package envelope

import "errors"

// Sentinel errors of Open; callers count refusals by kind.
var (
	// ErrUnsigned: the bytes are not a signed envelope (for example a bare
	// task).
	ErrUnsigned = errors.New("not a signed envelope")
	// ErrForged: the envelope is signed, but not by the expected key.
	ErrForged = errors.New("envelope signed by an unexpected key")
	// ErrAltered: the signature does not match the bytes, which were changed
	// after signing (or signed for another domain).
	ErrAltered = errors.New("envelope signature does not match its contents")
	// ErrWrongType: the envelope carries another kind of record.
	ErrWrongType = errors.New("envelope carries an unexpected payload type")
	// ErrInvalidPayload: the signed payload does not decode or validate.
	ErrInvalidPayload = errors.New("envelope payload is invalid")
)
