package storage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
// its name.
//
// A write error ends the open file at once (abandon): it is cut back to
// the end of its last Sync, indexed and closed, and the next Page opens a
// new file. Nothing sticks, so once the fault clears (a full disk has
// room again) uploads are stored without a restart. Not safe for
// concurrent use.
type rotator struct {
	dir     string
	maxSize int64
	now     func() time.Time
	log     *slog.Logger
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
	// out is the open file as the WARC writer writes it; its err is the
	// first write error.
	out *fileWriter
	// synced is the open file's size at its last Sync, and syncedRecords
	// the records (warcinfo included) up to there: what a fault keeps.
	synced        int64
	syncedRecords int
	// unindexed are files ended by a fault whose index could not be
	// made then; open tries them again.
	unindexed []string
	// wrap, when set, stands between the open WARC file and its writer:
	// the seam tests inject write errors through.
	wrap func(io.Writer) io.Writer
}

// fileWriter passes writes on to w and keeps the first error.
type fileWriter struct {
	w   io.Writer
	err error
}

func (f *fileWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

func newRotator(dir string, maxSize int64, now func() time.Time, log *slog.Logger, tag string, closed func(string)) (*rotator, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create WARC directory: %w", err)
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	return &rotator{dir: dir, maxSize: maxSize, now: now, log: log, tag: tag, closed: closed}, nil
}

// fileName returns the name of the seq'th file of a run started at t.
func (r *rotator) fileName(t time.Time, seq int) string {
	name := fmt.Sprintf("hivecrawl-%s-%05d", t.UTC().Format("20060102150405"), seq)
	if r.tag != "" {
		name += "-" + r.tag
	}
	return name + warcExt
}

// open starts the next file, after indexing the files a fault left
// without an index.
func (r *rotator) open() error {
	r.indexLeftovers()
	for {
		r.seq++
		r.name = r.fileName(r.now(), r.seq)
		path := filepath.Join(r.dir, r.name)
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create WARC file: %w", err)
		}
		idx, err := os.Create(filepath.Join(r.dir, partName(r.name)))
		if err != nil {
			f.Close()
			os.Remove(path)
			return fmt.Errorf("create CDXJ file of %s: %w", r.name, err)
		}
		r.idx, r.ibuf, r.ierr = idx, bufio.NewWriterSize(idx, 64<<10), nil
		r.out = &fileWriter{w: f}
		if r.wrap != nil {
			r.out.w = r.wrap(f)
		}
		r.synced, r.syncedRecords = 0, 0
		w, err := export.NewWARCWriter(r.out, export.WARCOptions{Compress: true, Filename: r.name, Now: r.now,
			Info:     [][2]string{{"description", "extracted text stored by the Hivecrawl storage module"}},
			OnRecord: r.record})
		if err != nil {
			f.Close()
			idx.Close()
			os.Remove(path)
			os.Remove(filepath.Join(r.dir, partName(r.name)))
			return fmt.Errorf("start WARC file %s: %w", r.name, err)
		}
		r.f, r.w = f, w
		return nil
	}
}

// indexLeftovers indexes the files a fault ended without an index and
// hands them to closed; those that fail again wait for the next open,
// or the next start.
func (r *rotator) indexLeftovers() {
	left := r.unindexed[:0]
	for _, name := range r.unindexed {
		if err := reindex(context.Background(), r.dir, name, r.log); err != nil {
			left = append(left, name)
			continue
		}
		if r.closed != nil {
			r.closed(name)
		}
	}
	r.unindexed = left
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
	before, size := r.w.Records(), r.w.Size()
	if err := r.w.Page(p); err != nil {
		if r.out.err != nil || r.w.Size() != size {
			// Part of a record may be in the file or its buffer.
			return Location{}, false, r.abandon(err)
		}
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
		return r.abandon(err)
	}
	if err := r.f.Sync(); err != nil {
		return r.abandon(fmt.Errorf("sync WARC file %s: %w", r.name, err))
	}
	if r.ierr == nil {
		if err := r.ibuf.Flush(); err != nil {
			r.ierr = fmt.Errorf("write CDXJ of %s: %w", r.name, err)
		}
	}
	if r.ierr != nil {
		return r.abandon(r.ierr)
	}
	r.synced, r.syncedRecords = r.w.Size(), r.w.Records()
	return nil
}

// abandon ends the open file after the write error cause: it is cut back
// to its last Sync (the records after it belong to an upload that is not
// stored, whose crawler sends it again), closed, and indexed from its
// records, or removed when it holds no page. The next Page opens a new
// file. It returns cause.
func (r *rotator) abandon(cause error) error {
	name, path := r.name, filepath.Join(r.dir, r.name)
	keep := r.syncedRecords > 1 // more than the warcinfo record
	var err error
	if keep {
		if err = r.f.Truncate(r.synced); err == nil {
			err = r.f.Sync()
		}
	}
	r.f.Close()
	r.idx.Close()
	os.Remove(filepath.Join(r.dir, partName(name)))
	r.w, r.f, r.idx, r.ibuf, r.out = nil, nil, nil, nil, nil
	r.log.Warn("WARC file ended by a write error; the next upload starts a new one",
		"file", name, "kept_bytes", r.synced, "err", cause)
	if keep {
		if err != nil {
			// reindex cuts it back when it can.
			r.log.Warn("WARC file not cut back; it is cut back when indexed", "file", name, "err", err)
		}
		r.unindexed = append(r.unindexed, name)
	} else if err := os.Remove(path); err != nil {
		r.log.Warn("Remove WARC file without a page", "file", name, "err", err)
	}
	r.indexLeftovers()
	return cause
}

// closeFile ends the current file: the WARC file synced and closed, then
// its CDXJ file synced and renamed into place, then closed called.
func (r *rotator) closeFile() error {
	if r.w == nil {
		return nil
	}
	name := r.name
	if err := r.Sync(); err != nil {
		return err // abandoned
	}
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
	r.w, r.f, r.idx, r.ibuf, r.out = nil, nil, nil, nil, nil
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

// Close ends the current file and indexes those a fault left without an
// index.
func (r *rotator) Close() error {
	err := r.closeFile()
	r.indexLeftovers()
	return err
}

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
