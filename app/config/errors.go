package config

import (
	"errors"
	"fmt"
)

// ErrInvalid wraps every validation failure (ErrUnknownKey too), so callers
// (the local API) can answer 400 rather than 500. The failures of a
// setting's value do not repeat its words: "download: "abc" is not a size"
// reads as one sentence after the command's name.
var ErrInvalid = errors.New("invalid setting")

// ErrUnknownKey is returned by Apply for a key that Keys does not list. It
// wraps ErrInvalid.
var ErrUnknownKey = invalid(errors.New("unknown key"))

// ErrOperatorSetting is wrapped, with ErrInvalid, by Apply's error for a
// setting that the network's operator makes for every volunteer (the
// User-Agent).
var ErrOperatorSetting = errors.New("set by the network's operator")

// ErrNotSaved is wrapped by Update's error when the change applies to the
// running client but cannot be written, because the configuration file is
// damaged: the change lasts until the client stops.
var ErrNotSaved = errors.New("not saved")

// invalidError is a validation failure: it says what is wrong in its own
// words and is ErrInvalid for errors.Is.
type invalidError struct{ err error }

func (e *invalidError) Error() string   { return e.err.Error() }
func (e *invalidError) Unwrap() []error { return []error{e.err, ErrInvalid} }

// invalid marks err as a validation failure.
func invalid(err error) error { return &invalidError{err} }

// invalidf is fmt.Errorf for a validation failure.
func invalidf(format string, a ...any) error { return invalid(fmt.Errorf(format, a...)) }
