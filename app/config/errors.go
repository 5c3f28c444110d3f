package config

import "errors"

// ErrUnknownKey is returned by Apply for a key that Keys does not list.
var ErrUnknownKey = errors.New("unknown setting")

// ErrInvalid wraps every validation failure, so callers (the local API) can
// answer 400 rather than 500.
var ErrInvalid = errors.New("invalid setting")
