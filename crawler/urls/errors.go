package urls

import "errors"

// Sentinel errors returned (wrapped) by Canonical. Callers branch on them with
// errors.Is, for example to count dropped links by reason.
var (
	// ErrInvalid: the reference is not a valid URL (or cannot be resolved
	// against the base).
	ErrInvalid = errors.New("invalid url")
	// ErrScheme: the URL's scheme is not http or https (mailto:,
	// javascript:, ftp:, data:, ...).
	ErrScheme = errors.New("scheme not crawled")
	// ErrTooLong: the canonical URL is longer than MaxLength bytes.
	ErrTooLong = errors.New("url too long")
)
