package storage

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/task"
)

// DefaultMaxFileSize is the size at which a WARC file is closed and the
// next one started: 1 GiB, as Common Crawl's files.
const DefaultMaxFileSize = 1 << 30

// Location is where one record lies: a file under the WARC directory and
// the offset of its gzip member.
type Location struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
}

// rotator writes conversion records to gzipped WARC 1.1 files in dir,
// starting a new file past maxSize, and the CDXJ index of each beside it
// (cdxj.go). Each run of the storage module starts a new file, so a file
// cut short by a crash is never appended to. A closed file is synced,
// its index renamed from .cdxj.part to .cdxj, and closed is called with
// its name. Not safe for concurrent use.
type rotator struct {
	dir     string
	maxSize int64
	now     func() time.Time
	// tag ends every file name of the run (runTag).
	tag    string
	closed func(name string)
	seq    int

	f    *os.File
	w    *export.WARCWriter
	name string
	// idx and ibuf are the open file's CDXJ index; ierr is the first
	// error writing it, returned by the next Sync or Close.
	idx  *os.File
	ibuf *bufio.Writer
	ierr error
	// conv is the offset of the last conversion record written.
	conv int64
}

func newRotator(dir string, maxSize int64, now func() time.Time, tag string, closed func(string)) (*rotator, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create WARC directory: %w", err)
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	return &rotator{dir: dir, maxSize: maxSize, now: now, tag: tag, closed: closed}, nil
}

// fileName returns the name of the seq'th file of a run started at t.
func (r *rotator) fileName(t time.Time, seq int) string {
	name := fmt.Sprintf("hivecrawl-%s-%05d", t.UTC().Format("20060102150405"), seq)
	if r.tag != "" {
		name += "-" + r.tag
	}
	return name + warcExt
}

// open starts the next file.
func (r *rotator) open() error {
	for {
		r.seq++
		r.name = r.fileName(r.now(), r.seq)
		f, err := os.OpenFile(filepath.Join(r.dir, r.name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create WARC file: %w", err)
		}
		idx, err := os.Create(filepath.Join(r.dir, partName(r.name)))
		if err != nil {
			f.Close()
			return fmt.Errorf("create CDXJ file of %s: %w", r.name, err)
		}
		r.idx, r.ibuf, r.ierr = idx, bufio.NewWriterSize(idx, 64<<10), nil
		w, err := export.NewWARCWriter(f, export.WARCOptions{Compress: true, Filename: r.name, Now: r.now,
			Info:     [][2]string{{"description", "extracted text stored by the Hivecrawl storage module"}},
			OnRecord: r.record})
		if err != nil {
			f.Close()
			idx.Close()
			return fmt.Errorf("start WARC file %s: %w", r.name, err)
		}
		r.f, r.w = f, w
		return nil
	}
}

// record is the WARC writer's OnRecord: the record's CDXJ line.
func (r *rotator) record(info export.RecordInfo) {
	if info.Type == "conversion" {
		r.conv = info.Offset
	}
	if !indexed(info.Type) || r.ierr != nil {
		return
	}
	if _, err := r.ibuf.Write(cdxjLine(info, r.name)); err != nil {
		r.ierr = fmt.Errorf("write CDXJ of %s: %w", r.name, err)
	}
}

// Page writes p and returns where its conversion record lies; ok is false
// when p has no text to store.
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
	before := r.w.Records()
	if err := r.w.Page(p); err != nil {
		return Location{}, false, err
	}
	if r.w.Records() == before {
		return Location{}, false, nil
	}
	return Location{File: r.name, Offset: r.conv}, true, nil
}

// Sync makes the records written so far durable. Their CDXJ lines are
// written out but not synced: after a crash the index of the file is
// made again from the file (reindex).
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
	if r.ierr == nil {
		if err := r.ibuf.Flush(); err != nil {
			r.ierr = fmt.Errorf("write CDXJ of %s: %w", r.name, err)
		}
	}
	return r.ierr
}

// closeFile ends the current file: the WARC file synced and closed, then
// its CDXJ file synced and renamed into place, then closed called.
func (r *rotator) closeFile() error {
	if r.w == nil {
		return nil
	}
	name := r.name
	err := r.w.Close()
	if err == nil {
		err = r.f.Sync()
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	ierr := r.ierr
	if ierr == nil {
		ierr = r.ibuf.Flush()
	}
	if ierr == nil {
		ierr = r.idx.Sync()
	}
	if cerr := r.idx.Close(); ierr == nil {
		ierr = cerr
	}
	part := filepath.Join(r.dir, partName(name))
	if err == nil && ierr == nil {
		if ierr = os.Rename(part, filepath.Join(r.dir, cdxjName(name))); ierr == nil {
			ierr = syncDir(r.dir)
		} else {
			ierr = errors.Join(ierr, os.Remove(part))
		}
	}
	r.w, r.f, r.idx, r.ibuf = nil, nil, nil, nil
	if err != nil {
		return fmt.Errorf("close WARC file %s: %w", name, err)
	}
	if ierr != nil {
		// The WARC file is whole; its index is made again at the next
		// start, as after a crash.
		return fmt.Errorf("close CDXJ file of %s: %w", name, ierr)
	}
	if r.closed != nil {
		r.closed(name)
	}
	return nil
}

// Close ends the current file.
func (r *rotator) Close() error { return r.closeFile() }

// syncDir makes renames and removals in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
