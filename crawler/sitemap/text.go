package sitemap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// parseText reads a plain-text sitemap: one absolute http(s) URL a line.
// Lines that are not such a URL are skipped; a document with none is not a
// sitemap.
func parseText(br *bufio.Reader, limit int) (*Sitemap, error) {
	sm := &Sitemap{Kind: Text}
	others := 0
	for {
		line, long, err := readLine(br)
		if err != nil && err != io.EOF {
			// The line was cut short by the read error.
			return sm, fmt.Errorf("read sitemap: %w", err)
		}
		if s := string(bytes.TrimSpace(line)); s != "" && !long {
			if isHTTPURL(s) {
				if len(sm.Entries) >= limit {
					sm.Truncated = true
					return sm, nil
				}
				sm.Entries = append(sm.Entries, Entry{Loc: s})
			} else {
				others++
			}
		}
		if err == io.EOF {
			break
		}
	}
	if len(sm.Entries) == 0 && others > 0 {
		return &Sitemap{}, fmt.Errorf("%w: no line is an http(s) URL", ErrNotSitemap)
	}
	return sm, nil
}

// readLine returns the next line without its end; long is set (and the
// line discarded) when it is longer than MaxLocBytes.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(buf)+len(chunk) > MaxLocBytes+2 { // + "\r\n"
				long, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, long, err
	}
}

// isHTTPURL reports whether s starts like an absolute http(s) URL.
func isHTTPURL(s string) bool {
	scheme, rest, ok := strings.Cut(s, "://")
	return ok && rest != "" && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"))
}
