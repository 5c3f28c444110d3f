package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/task"
)

// DefaultMaxFileSize is the size at which a WARC file is closed and the
// next one started.
const DefaultMaxFileSize = 1 << 30

// Location is where one record lies: a file under the WARC directory and
// the offset of its gzip member.
type Location struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
}

// rotator writes conversion records to gzipped WARC 1.1 files in dir,
// starting a new file past maxSize. Each run of the storage module starts a
// new file, so a file cut short by a crash is never appended to. Not safe
// for concurrent use.
type rotator struct {
	dir     string
	maxSize int64
	now     func() time.Time
	seq     int

	f    *os.File
	w    *export.WARCWriter
	name string
}

func newRotator(dir string, maxSize int64, now func() time.Time) (*rotator, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create WARC directory: %w", err)
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	return &rotator{dir: dir, maxSize: maxSize, now: now}, nil
}

// open starts the next file.
func (r *rotator) open() error {
	for {
		r.seq++
		r.name = fmt.Sprintf("hivecrawl-%s-%05d.warc.gz", r.now().UTC().Format("20060102150405"), r.seq)
		f, err := os.OpenFile(filepath.Join(r.dir, r.name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create WARC file: %w", err)
		}
		w, err := export.NewWARCWriter(f, export.WARCOptions{Compress: true, Filename: r.name, Now: r.now,
			Info: [][2]string{{"description", "extracted text stored by the Hivecrawl storage module"}}})
		if err != nil {
			f.Close()
			return fmt.Errorf("start WARC file %s: %w", r.name, err)
		}
		r.f, r.w = f, w
		return nil
	}
}

// Page writes p and returns where its record lies; ok is false when p has
// no text to store.
func (r *rotator) Page(p *task.Page) (loc Location, ok bool, err error) {
	if r.w != nil && r.w.Size() >= r.maxSize {
		if err := r.closeFile(); err != nil {
			return Location{}, false, err
		}
	}
	if r.w == nil {
		if err := r.open(); err != nil {
			return Location{}, false, err
		}
	}
	off, before := r.w.Size(), r.w.Records()
	if err := r.w.Page(p); err != nil {
		return Location{}, false, err
	}
	if r.w.Records() == before {
		return Location{}, false, nil
	}
	return Location{File: r.name, Offset: off}, true, nil
}

// Sync makes the records written so far durable.
func (r *rotator) Sync() error {
	if r.w == nil {
		return nil
	}
	if err := r.w.Flush(); err != nil {
		return err
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("sync WARC file %s: %w", r.name, err)
	}
	return nil
}

func (r *rotator) closeFile() error {
	if r.w == nil {
		return nil
	}
	err := r.w.Close()
	if err == nil {
		err = r.f.Sync()
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	r.w, r.f = nil, nil
	if err != nil {
		return fmt.Errorf("close WARC file %s: %w", r.name, err)
	}
	return nil
}

// Close ends the current file.
func (r *rotator) Close() error { return r.closeFile() }
