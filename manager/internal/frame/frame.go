// Package frame is the manager's small-message framing: one JSON value
// behind its length as a uvarint, decoded strictly (unknown fields and
// trailing data are errors). The entry and report protocols use it.
package frame

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrMalformed is wrapped by every decoding failure.
var ErrMalformed = errors.New("malformed message")

// Write sends v as one frame of at most limit bytes.
func Write(w io.Writer, v any, limit int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	if len(b) > limit {
		return fmt.Errorf("message of %d bytes exceeds %d", len(b), limit)
	}
	_, err = w.Write(append(binary.AppendUvarint(nil, uint64(len(b))), b...))
	return err
}

// Read decodes one frame of at most limit bytes into v.
func Read(r *bufio.Reader, v any, limit int) error {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return fmt.Errorf("%w: length: %v", ErrMalformed, err)
	}
	if n > uint64(limit) {
		return fmt.Errorf("%w: %d bytes exceeds %d", ErrMalformed, n, limit)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("%w: body: %v", ErrMalformed, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data", ErrMalformed)
	}
	return nil
}
