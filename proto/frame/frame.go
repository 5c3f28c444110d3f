// Package frame is the framing of the manager's protocols: one JSON value behind
// its length as a uvarint, decoded strictly (unknown fields and trailing
// data are errors). Every protocol under proto/ uses it.
package frame

import (
	"context"
	"time"

	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"io"
)

// Sentinel errors callers branch on.
var (
	// ErrMalformed is wrapped by every decoding failure.
	ErrMalformed = errors.New("malformed message")
	// ErrTooLarge is wrapped when a message exceeds its limit.
	ErrTooLarge = errors.New("message too large")
)

// Write sends v as one frame of at most limit bytes.
func Write(w io.Writer, v any, limit int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	if err := WriteBytes(w, b, limit); err != nil {
		return fmt.Errorf("send %T: %w", v, err)
	}
	return nil
}

// WriteBytes writes b, an encoded message, as one frame of at most limit
// bytes.
func WriteBytes(w io.Writer, b []byte, limit int) error {
	if len(b) > limit {
		return fmt.Errorf("%w: %d bytes exceeds %d", ErrTooLarge, len(b), limit)
	}
	_, err := w.Write(append(binary.AppendUvarint(nil, uint64(len(b))), b...))
	return err
}

// ReadBytes reads one frame of at most limit bytes: its length from r,
// its body from full (usually the same reader).
func ReadBytes(r io.ByteReader, full io.Reader, limit int) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, fmt.Errorf("read frame length: %w", err)
	}
	if n > uint64(limit) {
		return nil, fmt.Errorf("%w: frame of %d bytes exceeds %d", ErrTooLarge, n, limit)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(full, b); err != nil {
		return nil, fmt.Errorf("read frame: %w", err)
	}
	return b, nil
}

// Strict decodes the JSON in b into v, refusing unknown fields and
// trailing data.
func Strict(b []byte, v any) error {
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

// Read decodes one frame of at most limit bytes into v.
func Read(r *bufio.Reader, v any, limit int) error {
	b, err := ReadBytes(r, r, limit)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return Strict(b, v)
}

// Stream is the part of a libp2p stream Exchange uses.
type Stream interface {
	io.ReadWriter
	CloseWrite() error
	Reset() error
}

// Exchange sends req on s, closes its write side and decodes the one
// answer into resp; each message is at most limit bytes. On failure the
// stream is reset. The caller opens s, sets its deadline and closes it.
func Exchange(s Stream, req, resp any, limit int) error {
	err := Write(s, req, limit)
	if err == nil {
		err = s.CloseWrite()
	}
	if err == nil {
		err = Read(bufio.NewReader(s), resp, limit)
	}
	if err != nil {
		s.Reset()
	}
	return err
}

// StreamOpener is what Call needs from a libp2p host.
type StreamOpener interface {
	NewStream(ctx context.Context, p peer.ID, pids ...protocol.ID) (network.Stream, error)
}

// Call opens a stream to p for protocol pid, sends req and decodes the one
// answer into resp (Exchange), all within timeout.
func Call(ctx context.Context, h StreamOpener, p peer.ID, pid protocol.ID, req, resp any, limit int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := h.NewStream(ctx, p, pid)
	if err != nil {
		return err
	}
	defer s.Close()
	if dl, ok := ctx.Deadline(); ok {
		s.SetDeadline(dl)
	}
	return Exchange(s, req, resp, limit)
}
