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
	var buf bytes.Buffer
	if sizeHint > 0 {
		// MinRead spare bytes so the read that sees EOF does not grow it.
		buf.Grow(int(min(sizeHint, limit) + bytes.MinRead))
	}
	if _, err := buf.ReadFrom(io.LimitReader(dec, limit+1)); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return data[:limit], fmt.Errorf("%w (%d bytes)", ErrBodyTooLarge, limit)
	}
	return data, nil
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
