package indexnow

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// MaxKeyFile bounds the bytes of a key file read: a key and some white
// space. A longer file does not hold the key alone.
const MaxKeyFile = 1 << 10

// MatchKeyFile checks that a fetched key file holds key: UTF-8 text which,
// without a byte-order mark and surrounding white space, is the key.
func MatchKeyFile(body []byte, key string) error {
	if len(body) > MaxKeyFile {
		return fmt.Errorf("%w: the key file is longer than %d bytes", ErrKey, MaxKeyFile)
	}
	body = bytes.TrimPrefix(body, []byte("\uFEFF"))
	if !utf8.Valid(body) {
		return fmt.Errorf("%w: the key file is not UTF-8 text", ErrKey)
	}
	if string(bytes.TrimSpace(body)) != key {
		return fmt.Errorf("%w: the key file does not hold the key", ErrKey)
	}
	return nil
}
