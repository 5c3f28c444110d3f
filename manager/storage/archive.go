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
	"slices"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket"
)

// Archive is an object store that closed WARC files and their CDXJ
// indexes are moved to (a *bucket.Bucket).
type Archive interface {
	// Put uploads the file at path as object name and returns once the
	// store has confirmed it.
	Put(ctx context.Context, name, path, contentType string) (bucket.Object, error)
	// OpenAt returns object name from byte off on.
	OpenAt(ctx context.Context, name string, off int64) (io.ReadCloser, error)
}

var _ Archive = (*bucket.Bucket)(nil)

// Object names in an Archive: WARC files under warc/, their indexes under
// cdxj/.
func warcObject(name string) string { return "warc/" + name }
func cdxjObject(name string) string { return "cdxj/" + cdxjName(name) }

// Defaults of the shipper's waits.
const (
	// DefaultRetryWait is the first wait after a failed upload; it
	// doubles with each failure in a row up to maxRetryWait.
	DefaultRetryWait = time.Second
	maxRetryWait     = 5 * time.Minute
	// DefaultCloseTimeout bounds Close's upload of the last files.
	DefaultCloseTimeout = time.Minute
)

// shipper is the storage module's background work on closed WARC files:
// it first makes the CDXJ index of files left without one (by a crash, or
// written before indexes were kept), then, with an Archive, uploads every
// closed file and its index and removes them locally once the store has
// confirmed both, retrying failed uploads with a growing wait. Its
// goroutine is started by New and stopped by Close.
type shipper struct {
	dir     string
	archive Archive // nil: the files stay in dir
	log     *slog.Logger
	wait    time.Duration

	wake  chan struct{} // a file was closed
	drain chan struct{} // closed by stop: upload what is left, then end
	done  chan struct{} // closed when run returns
}

func newShipper(dir string, archive Archive, log *slog.Logger, wait time.Duration) *shipper {
	return &shipper{dir: dir, archive: archive, log: log, wait: wait,
		wake: make(chan struct{}, 1), drain: make(chan struct{}), done: make(chan struct{})}
}

// closed tells the shipper that WARC file name was closed.
func (s *shipper) closed(string) {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// unindexed returns the WARC files in dir without a CDXJ index: those the
// shipper indexes at start. Call it before the rotator opens a file.
func unindexed(dir string) ([]string, error) {
	names, err := warcFiles(dir)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(names, func(n string) bool {
		_, err := os.Stat(filepath.Join(dir, cdxjName(n)))
		return err == nil
	}), nil
}

// warcFiles returns the names of the storage module's WARC files in dir,
// oldest first.
func warcFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list WARC directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, "hivecrawl-") && strings.HasSuffix(n, warcExt) {
			names = append(names, n)
		}
	}
	return names, nil // ReadDir sorts by name, and names start with the time
}

// run indexes the files left unindexed, then ships closed files until
// ctx ends or, after stop, none is left.
func (s *shipper) run(ctx context.Context, leftovers []string) {
	defer close(s.done)
	for _, name := range leftovers {
		if err := reindex(ctx, s.dir, name, s.log); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("WARC file not indexed; it is tried again at the next start", "file", name, "err", err)
		}
	}
	if s.archive == nil {
		return
	}
	// After stop, one more pass that succeeds ends the run: the rotator
	// closed its last file before stop.
	wait, drain, draining := s.wait, s.drain, false
	for {
		err := s.shipAll(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && draining:
			return
		case err != nil:
			s.log.Warn("WARC upload failed; retrying", "in", wait, "err", err)
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-drain:
				// Stopping: try again at once, then wait again.
				t.Stop()
				drain, draining = nil, true
			case <-ctx.Done():
				t.Stop()
				return
			}
			wait = min(2*wait, maxRetryWait)
			continue
		}
		wait = s.wait
		select {
		case <-s.wake:
		case <-drain:
			drain, draining = nil, true
		case <-ctx.Done():
			return
		}
	}
}

// shipAll uploads every closed WARC file (one with its CDXJ index beside
// it), oldest first.
func (s *shipper) shipAll(ctx context.Context) error {
	names, err := warcFiles(s.dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(s.dir, cdxjName(name))); err != nil {
			continue // being written, or not indexed yet
		}
		if err := s.ship(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// ship uploads WARC file name and its index, then removes both: the index
// first, so that a crash in between leaves a WARC file without an index,
// which is indexed and uploaded again at the next start.
func (s *shipper) ship(ctx context.Context, name string) error {
	path, idx := filepath.Join(s.dir, name), filepath.Join(s.dir, cdxjName(name))
	w, err := s.archive.Put(ctx, warcObject(name), path, "application/warc")
	if err != nil {
		return err
	}
	if _, err := s.archive.Put(ctx, cdxjObject(name), idx, "text/plain; charset=utf-8"); err != nil {
		return err
	}
	if err := os.Remove(idx); err != nil {
		return fmt.Errorf("remove uploaded %s: %w", idx, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove uploaded %s: %w", path, err)
	}
	if err := syncDir(s.dir); err != nil {
		return err
	}
	s.log.Info("WARC file uploaded", "file", name, "object", w.Key, "bytes", w.Size)
	return nil
}

// stop asks run to upload what is left and end, and waits for it at most
// timeout; cancel ends the upload under way after that.
func (s *shipper) stop(cancel context.CancelFunc, timeout time.Duration) {
	close(s.drain)
	t := time.AfterFunc(timeout, cancel)
	defer t.Stop()
	<-s.done
	cancel()
}

// reindex writes the CDXJ index of WARC file name in dir from its
// records. A file that ends inside a record (the process stopped while
// writing it) is cut back to its last whole record first: records after
// the last sync belong to uploads that were not stored, whose crawlers
// send them again. A file damaged in the middle is indexed up to the
// damage and kept whole. A file without a whole record is removed.
func reindex(ctx context.Context, dir, name string, log *slog.Logger) error {
	path, part := filepath.Join(dir, name), filepath.Join(dir, partName(name))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := os.Create(part)
	if err != nil {
		return err
	}
	defer func() {
		if out != nil {
			out.Close()
			os.Remove(part)
		}
	}()
	bw := bufio.NewWriter(out)
	end, err := scanWARC(ctx, f, func(info export.RecordInfo) error {
		_, err := bw.Write(cdxjLine(info, name))
		return err
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, errCutShort):
		if end == 0 {
			log.Info("Removing a WARC file without a whole record", "file", name)
			if err := os.Remove(path); err != nil {
				return err
			}
			return syncDir(dir)
		}
		if err := f.Truncate(end); err != nil {
			return fmt.Errorf("cut %s back to %d bytes: %w", name, end, err)
		}
		if err := f.Sync(); err != nil {
			return err
		}
		log.Info("WARC file cut back to its last whole record", "file", name, "bytes", end)
	case err != nil:
		log.Warn("WARC file damaged; indexed up to the damage and kept as it is", "file", name, "indexed_bytes", end, "err", err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := out.Sync(); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	out = nil
	if err := os.Rename(part, filepath.Join(dir, cdxjName(name))); err != nil {
		return err
	}
	log.Info("WARC file indexed", "file", name)
	return syncDir(dir)
}
