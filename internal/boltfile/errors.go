package boltfile

import "errors"

// ErrDamaged is wrapped by Open's error for a file it refused as damaged.
var ErrDamaged = errors.New("file is damaged")
