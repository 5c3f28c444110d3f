package storage

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
)

// errCutShort is returned by scanWARC for a file that ends inside a gzip
// member: the last record was being written when the process stopped.
var errCutShort = errors.New("WARC file ends inside a record")

// maxRecordHead bounds the WARC and HTTP headers scanWARC reads of one
// record; the rest of the record is read and dropped.
const maxRecordHead = 256 << 10

// scanWARC reads a gzipped WARC file (one gzip member per record, as
// WARCWriter writes them) from r and calls visit with every conversion
// and response record, as export.WARCWriter's OnRecord gave it when the
// record was written. It returns the offset after the last whole member;
// errCutShort when the input ends inside a member, another error for a
// member that is not gzip or not WARC (the file is damaged from there).
func scanWARC(ctx context.Context, r io.Reader, visit func(export.RecordInfo) error) (end int64, err error) {
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	var zr gzip.Reader
	for {
		if err := ctx.Err(); err != nil {
			return end, err
		}
		start := cr.n - int64(br.Buffered())
		if _, err := br.Peek(1); errors.Is(err, io.EOF) {
			return end, nil
		} else if err != nil {
			return end, err
		}
		if err := zr.Reset(br); err != nil {
			return end, memberError(start, err)
		}
		zr.Multistream(false)
		info, herr := readRecordHead(&zr)
		if _, err := io.Copy(io.Discard, &zr); err != nil {
			return end, memberError(start, err)
		}
		stop := cr.n - int64(br.Buffered())
		if herr != nil {
			return end, fmt.Errorf("record at %d: %w", start, herr)
		}
		if indexed(info.Type) {
			info.Offset, info.Length = start, stop-start
			if err := visit(info); err != nil {
				return end, err
			}
		}
		end = stop
	}
}

// memberError names the failure of the gzip member at off.
func memberError(off int64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w (at %d)", errCutShort, off)
	}
	return fmt.Errorf("gzip member at %d: %w", off, err)
}

// readRecordHead reads a WARC record's header (and a response record's
// HTTP status line and header) from r and returns what its CDXJ line
// needs.
func readRecordHead(r io.Reader) (export.RecordInfo, error) {
	tp := textproto.NewReader(bufio.NewReader(io.LimitReader(r, maxRecordHead)))
	version, err := tp.ReadLine()
	if err != nil {
		return export.RecordInfo{}, fmt.Errorf("read WARC version: %w", err)
	}
	if !strings.HasPrefix(version, "WARC/") {
		return export.RecordInfo{}, fmt.Errorf("not a WARC record: %.20q", version)
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return export.RecordInfo{}, fmt.Errorf("read WARC header: %w", err)
	}
	info := export.RecordInfo{
		Type: h.Get("WARC-Type"), ID: h.Get("WARC-Record-ID"), Target: h.Get("WARC-Target-URI"),
		Mime: h.Get("Content-Type"), Digest: h.Get("WARC-Payload-Digest"),
	}
	if d, err := time.Parse(time.RFC3339Nano, h.Get("WARC-Date")); err == nil {
		info.Date = d
	}
	switch info.Type {
	case "conversion":
		info.Status, _ = strconv.Atoi(h.Get(export.FieldStatus))
	case "response":
		if !strings.HasPrefix(info.Mime, "application/http") {
			break
		}
		info.Mime = ""
		line, err := tp.ReadLine()
		if err != nil {
			break
		}
		if _, code, ok := strings.Cut(line, " "); ok && strings.HasPrefix(line, "HTTP/") {
			code, _, _ = strings.Cut(code, " ")
			info.Status, _ = strconv.Atoi(code)
		}
		if hh, err := tp.ReadMIMEHeader(); err == nil {
			info.Mime = hh.Get("Content-Type")
		}
	}
	return info, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
