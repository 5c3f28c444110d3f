package localapi

import (
	"errors"
	"fmt"
)

// ErrInvalid marks a Backend error caused by the request (a bad setting);
// the server answers 400 with the error's text. Wrap with Invalid.
var ErrInvalid = errors.New("invalid request")

// ErrNotFound marks a Backend error for something that does not exist (a
// channel, a page's text); the server answers 404 with the error's text.
var ErrNotFound = errors.New("not found")

// ErrNotSolo is the Solo methods' error outside solo mode; the server
// answers 409 with the error's text.
var ErrNotSolo = errors.New("the client is not in solo mode")

// ErrConflict marks a Backend error for a request the current state
// refuses (crawl now while a crawl runs); the server answers 409.
var ErrConflict = errors.New("conflict")

// Invalid marks err as the caller's mistake, keeping its message.
func Invalid(err error) error { return mark(ErrInvalid, err) }

// Conflict marks err as refused by the current state, keeping its message.
func Conflict(err error) error { return mark(ErrConflict, err) }

// mark makes err match kind with errors.Is, keeping err's message.
func mark(kind, err error) error {
	if err == nil {
		return nil
	}
	return markedError{kind, err}
}

type markedError struct{ kind, err error }

func (e markedError) Error() string   { return e.err.Error() }
func (e markedError) Unwrap() []error { return []error{e.kind, e.err} }

// APIError is an error answer from the server.
type APIError struct {
	Code    int
	Message string
}

// Error formats the server's message with the HTTP status code.
func (e *APIError) Error() string { return fmt.Sprintf("%s (HTTP %d)", e.Message, e.Code) }
