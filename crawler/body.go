package crawler

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"strings"
)

// meteredReader counts the bytes read off the connection and passes each
// read through the bandwidth limiter. Reads are at most ReadChunk bytes.
type meteredReader struct {
	ctx     context.Context
	r       io.Reader
	limiter Limiter
	n       int64
}

func (m *meteredReader) Read(p []byte) (int, error) {
	if len(p) > ReadChunk {
		p = p[:ReadChunk]
	}
	n, err := m.r.Read(p)
	m.n += int64(n)
	if n > 0 && m.limiter != nil {
		if werr := m.limiter.WaitN(m.ctx, n); werr != nil {
			return n, fmt.Errorf("bandwidth limiter: %w", werr)
		}
	}
	return n, err
}

// drain reads and discards a small unwanted body so the connection can be
// reused; a body longer than drainLimit is left for Close to cut off.
func drain(r io.Reader, contentLength int64) {
	if contentLength > drainLimit {
		return
	}
	_, _ = io.CopyN(io.Discard, r, drainLimit)
}

// readBody decodes a response body by its Content-Encoding and reads at most
// limit decompressed bytes. A longer body yields the first limit bytes and
// ErrBodyTooLarge, so a compression bomb stops at the cap. sizeHint (the
// Content-Length, or -1) presizes the buffer.
func readBody(r io.Reader, encoding string, limit, sizeHint int64) ([]byte, error) {
	dec, err := decoder(r, encoding)
	if err != nil {
		return nil, err
	}
	if c, ok := dec.(io.Closer); ok {
		defer c.Close()
	}
	data, err := readAll(io.LimitReader(dec, limit+1), min(sizeHint, limit))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(data)) > limit {
		return data[:limit], fmt.Errorf("%w (%d bytes)", ErrBodyTooLarge, limit)
	}
	return data, nil
}

// Pieces readAll reads a body of unknown size in: the first small, each
// next twice the last, up to maxPiece.
const (
	firstPiece = 32 << 10
	maxPiece   = 1 << 20
)

// readAll reads r to its end into a slice of exactly its length. A body
// of known size (sizeHint > 0) is read into one buffer of that size plus
// a spare byte; one of unknown size in pieces, copied once into the
// result, so a 10 MiB body costs 20 MiB while it is read and 10 MiB
// after, not the 24 and 16 of a buffer that doubles.
func readAll(r io.Reader, sizeHint int64) ([]byte, error) {
	if sizeHint > 0 {
		// bytes.MinRead spare bytes so the read that sees EOF does not grow it.
		buf := bytes.NewBuffer(make([]byte, 0, sizeHint+bytes.MinRead))
		_, err := buf.ReadFrom(r)
		return buf.Bytes(), err
	}
	var (
		pieces [][]byte
		total  int
	)
	for size := firstPiece; ; size = min(2*size, maxPiece) {
		p := make([]byte, size)
		n, err := io.ReadFull(r, p)
		if n > 0 {
			pieces = append(pieces, p[:n])
			total += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	out := make([]byte, 0, total)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out, nil
}

// decoder wraps r to undo the Content-Encoding. "deflate" is meant to be
// zlib-wrapped (RFC 9110) but some servers send raw deflate; both are read.
func decoder(r io.Reader, encoding string) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return r, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		return zr, nil
	case "deflate":
		br := bufio.NewReader(r)
		hdr, _ := br.Peek(2)
		if len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, fmt.Errorf("zlib body: %w", err)
			}
			return zr, nil
		}
		return flate.NewReader(br), nil
	}
	return nil, fmt.Errorf("%w: %q", ErrContentEncoding, encoding)
}
