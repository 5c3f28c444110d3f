package config

import (
	"errors"
	"fmt"
)

// ErrInvalid wraps every validation failure (ErrUnknownKey too), so callers
// (the local API) can answer 400 rather than 500.
var ErrInvalid = errors.New("invalid setting")

// ErrUnknownKey is returned by Apply for a key that Keys does not list. It
// wraps ErrInvalid.
var ErrUnknownKey = fmt.Errorf("%w: unknown key", ErrInvalid)

// ErrOperatorSetting is wrapped, with ErrInvalid, by Apply's error for a
// setting that the network's operator makes for every volunteer (the
// User-Agent).
var ErrOperatorSetting = errors.New("set by the network's operator")

// ErrNotSaved is wrapped by Update's error when the change applies to the
// running client but cannot be written, because the configuration file is
// damaged: the change lasts until the client stops.
var ErrNotSaved = errors.New("not saved")
