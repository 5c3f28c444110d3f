package recrawl

import "errors"

// ErrNoChannels is returned by constructors given no channels.
var ErrNoChannels = errors.New("recrawl: no channels")

// ErrBadChannel is returned for a channel whose group is outside 0…K−1 or
// whose change interval is not positive.
var ErrBadChannel = errors.New("recrawl: bad channel")

// ErrBadConfig is returned for a configuration value out of its range.
var ErrBadConfig = errors.New("recrawl: bad configuration")
