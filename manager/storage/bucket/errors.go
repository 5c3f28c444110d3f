package bucket

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrInvalidURL: a store URL or endpoint is not one this package
	// accepts; the message says which part and why.
	ErrInvalidURL = errors.New("invalid object store URL")
	// ErrNoCredentials: AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not
	// set.
	ErrNoCredentials = errors.New("no object store credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	// ErrNotFound: the bucket or the object does not exist.
	ErrNotFound = errors.New("not found in the object store")
	// ErrNotConfirmed: after an upload the server reported an object of
	// another size or ETag than the one uploaded.
	ErrNotConfirmed = errors.New("upload not confirmed by the object store")
)
