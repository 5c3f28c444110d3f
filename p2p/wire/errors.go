package wire

import "errors"

// ErrInvalid is wrapped by every validation failure of a decoded message.
var ErrInvalid = errors.New("invalid wire message")

// ErrTooLarge is returned when a message exceeds its protocol's size limit,
// sending or receiving.
var ErrTooLarge = errors.New("wire message too large")
