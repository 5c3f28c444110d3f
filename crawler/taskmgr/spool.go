package taskmgr

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/task"
)

// spool writes a task's pages to a file, one JSON task.Page per line.
type spool struct {
	f    *os.File
	w    *bufio.Writer
	enc  *json.Encoder
	path string
}

var _ crawler.Sink = (*spool)(nil)

// spoolPath names the spool file of a task; task IDs may hold any bytes, so
// the name is a hash of the ID.
func spoolPath(dir, id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".spool")
}

// createSpool creates (or truncates: a re-run starts from scratch) the
// spool file at path.
func createSpool(path string) (*spool, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create spool: %w", err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	return &spool{f: f, w: w, enc: json.NewEncoder(w), path: path}, nil
}

// Page appends p.
func (s *spool) Page(p *task.Page) error {
	if err := s.enc.Encode(p); err != nil {
		return fmt.Errorf("write spool %s: %w", s.path, err)
	}
	return nil
}

// Commit flushes and syncs the file, so the task may be marked done.
func (s *spool) Commit() error {
	if err := s.w.Flush(); err != nil {
		s.f.Close()
		return fmt.Errorf("flush spool %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		s.f.Close()
		return fmt.Errorf("sync spool %s: %w", s.path, err)
	}
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("close spool %s: %w", s.path, err)
	}
	return syncDir(filepath.Dir(s.path))
}

// Discard closes and deletes the file.
func (s *spool) Discard() {
	s.f.Close()
	os.Remove(s.path)
}

// syncDir makes a new directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// ReadSpool reads the pages of a spool file, for uploaders.
func ReadSpool(path string, fn func(*task.Page) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read spool: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	for dec.More() {
		var p task.Page
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("read spool %s: %w", path, err)
		}
		if err := fn(&p); err != nil {
			return err
		}
	}
	return nil
}
