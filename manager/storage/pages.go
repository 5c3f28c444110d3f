package storage

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// pageSource is an upload's pages, read one at a time and as often as a
// store needs: the module never holds a result whole, so storing one
// takes memory for a page and a search batch, whatever its page count.
type pageSource interface {
	// Len is the number of pages.
	Len() int
	// Each calls fn with each page and its position, in order; an error
	// from fn stops it and is returned. fn may keep nothing of p beyond
	// the call that it does not copy.
	Each(fn func(i int, p *task.Page) error) error
}

// pageSlice is a pageSource over pages already in memory (Accept).
type pageSlice []*task.Page

func (ps pageSlice) Len() int { return len(ps) }

func (ps pageSlice) Each(fn func(int, *task.Page) error) error {
	for i, p := range ps {
		if err := fn(i, p); err != nil {
			return err
		}
	}
	return nil
}

var _ pageSource = pageSlice(nil)

// uploadsDir is where uploads are spooled while they are read and stored,
// under a manager data directory.
func uploadsDir(dataDir string) string { return filepath.Join(dataDir, "uploads") }

// uploadFile is an upload's page messages, spooled to a file as they came
// in, each checked by DecodePage on the way.
type uploadFile struct {
	path string
	n    int
	// largest is the size of the largest page message.
	largest int
}

var _ pageSource = (*uploadFile)(nil)

func (u *uploadFile) Len() int { return u.n }

func (u *uploadFile) Each(fn func(int, *task.Page) error) error {
	f, err := os.Open(u.path)
	if err != nil {
		return fmt.Errorf("read spooled upload: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for i := range u.n {
		b, err := frame.ReadBytes(br, br, upload.MaxPageSize)
		if err != nil {
			return fmt.Errorf("read spooled upload %s: page %d: %w", u.path, i, err)
		}
		p, err := upload.DecodePage(b)
		if err != nil {
			return fmt.Errorf("read spooled upload %s: %w", u.path, err)
		}
		if err := fn(i, p); err != nil {
			return err
		}
	}
	return nil
}

// spoolUpload reads the n page messages of an upload from br into a file
// under the uploads directory, checking each, and returns it; the caller
// removes it. resp is the refusal when the upload is not acceptable.
func (s *Storage) spoolUpload(ctx context.Context, br *bufio.Reader, n int) (up *uploadFile, resp *upload.Response) {
	f, err := os.CreateTemp(uploadsDir(s.opts.Dir), "upload-*")
	if err != nil {
		s.log.Warn("Cannot spool an upload", "err", err)
		return nil, &upload.Response{Error: "storage cannot take uploads now, retry later"}
	}
	up = &uploadFile{path: f.Name(), n: n}
	fail := func(r *upload.Response) (*uploadFile, *upload.Response) {
		f.Close()
		os.Remove(up.path)
		return nil, r
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	total := 0
	for range n {
		if ctx.Err() != nil {
			return fail(&upload.Response{Error: fmt.Sprintf("read page: %v", ctx.Err())})
		}
		b, err := frame.ReadBytes(br, br, upload.MaxPageSize)
		if err != nil {
			return fail(&upload.Response{Error: fmt.Sprintf("read page: %v", err)})
		}
		if total += len(b); total > upload.MaxUploadBytes {
			return fail(&upload.Response{Error: fmt.Sprintf("upload exceeds %d bytes", upload.MaxUploadBytes)})
		}
		if _, err := upload.DecodePage(b); err != nil {
			return fail(&upload.Response{Error: err.Error()})
		}
		up.largest = max(up.largest, len(b))
		if err := frame.WriteBytes(bw, b, upload.MaxPageSize); err != nil {
			s.log.Warn("Cannot spool an upload", "err", err)
			return fail(&upload.Response{Error: "storage cannot take uploads now, retry later"})
		}
	}
	err = bw.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.log.Warn("Cannot spool an upload", "err", err)
		os.Remove(up.path)
		return nil, &upload.Response{Error: "storage cannot take uploads now, retry later"}
	}
	return up, nil
}
