package crawler

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

// Spool file format: the 8-byte magic "HCSPOOL1", then one record per page:
// a 4-byte big-endian payload length, a 4-byte big-endian CRC-32C of the
// payload, and the payload, the page as JSON. A record with an empty
// payload is a mark (Spool.Mark: a request began) and holds no page. A
// crash mid-write leaves a short last record, which ReadSpool reports as
// ErrSpoolTruncated after delivering every whole record before it.
const spoolMagic = "HCSPOOL1"

// maxSpoolRecord bounds one record, so a corrupt length cannot make the
// reader allocate without limit.
const maxSpoolRecord = 64 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Errors from ReadSpool.
var (
	// ErrSpoolTruncated: the spool ends inside a record, as a crash while
	// writing leaves it; the records before it were delivered.
	ErrSpoolTruncated = errors.New("spool ends in a partial record")
	// ErrSpoolCorrupt: the spool is not a spool, or a record fails its
	// checksum or does not decode.
	ErrSpoolCorrupt = errors.New("spool corrupt")
)

// Spool streams pages to a file as they are done. It is a Sink and is safe
// for concurrent use.
type Spool struct {
	mu      sync.Mutex // guards the fields below
	f       *os.File
	w       *bufio.Writer
	n       int // pages
	records int // pages and marks
	bytes   int64
	buf     []byte
}

var _ Sink = (*Spool)(nil)

// OpenSpool creates (or truncates) the spool file at path.
func OpenSpool(path string) (*Spool, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open spool: %w", err)
	}
	s := &Spool{f: f, w: bufio.NewWriterSize(f, 256<<10)}
	if _, err := s.w.WriteString(spoolMagic); err != nil {
		f.Close()
		return nil, fmt.Errorf("write spool header %s: %w", path, err)
	}
	s.bytes = int64(len(spoolMagic))
	return s, nil
}

// ResumeSpool reopens the spool at path to append after its first count
// pages and records records, size bytes in all (as Count, Records and
// Size gave them at a Sync): what was written after that is cut off.
func ResumeSpool(path string, size int64, count, records int) (*Spool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("resume spool: %w", err)
	}
	fail := func(err error) (*Spool, error) {
		f.Close()
		return nil, fmt.Errorf("resume spool %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if size < int64(len(spoolMagic)) || fi.Size() < size || count < 0 || records < count {
		return fail(fmt.Errorf("%w: %d bytes on disk, %d expected", ErrSpoolTruncated, fi.Size(), size))
	}
	if err := f.Truncate(size); err != nil {
		return fail(err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return fail(err)
	}
	return &Spool{f: f, w: bufio.NewWriterSize(f, 256<<10), n: count, records: records, bytes: size}, nil
}

// Sync writes what is buffered and makes it durable: a crash after Sync
// keeps every page written before it.
func (s *Spool) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("sync spool: spool is closed")
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("sync spool: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync spool: %w", err)
	}
	return nil
}

// Page appends p to the spool.
func (s *Spool) Page(p *task.Page) error {
	payload, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode page %s: %w", p.URL, err)
	}
	if len(payload) > maxSpoolRecord {
		return fmt.Errorf("spool page %s: record of %d bytes exceeds %d", p.URL, len(payload), maxSpoolRecord)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("spool page: spool is closed")
	}
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(hdr[4:], crc32.Checksum(payload, crcTable))
	if _, err := s.w.Write(hdr[:]); err != nil {
		return fmt.Errorf("spool page %s: %w", p.URL, err)
	}
	if _, err := s.w.Write(payload); err != nil {
		return fmt.Errorf("spool page %s: %w", p.URL, err)
	}
	// Hand every page to the kernel: a killed process leaves it in the
	// file, which tells the next start how far the crawl got
	// (SpoolRecords).
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool page %s: %w", p.URL, err)
	}
	s.n++
	s.records++
	s.bytes += int64(len(hdr) + len(payload))
	return nil
}

// Mark appends a mark, an empty record, and hands it to the kernel: a run
// marks each fetched page before processing it (WithProcessingMark), so
// that after a crash SpoolState tells whether the process died while
// processing a page.
func (s *Spool) Mark() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("spool mark: spool is closed")
	}
	var hdr [8]byte // length 0; the CRC-32C of nothing is 0
	if _, err := s.w.Write(hdr[:]); err != nil {
		return fmt.Errorf("spool mark: %w", err)
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool mark: %w", err)
	}
	s.records++
	s.bytes += int64(len(hdr))
	return nil
}

// Records returns the number of records written: pages and marks.
func (s *Spool) Records() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records
}

// SpoolState reads the spool at path as a crash left it: the whole pages
// it holds, whether its last whole record is a mark (the process died
// while processing a page), and when it was last written, which tells one
// death from the next. A partial last record is ignored; a missing file
// has no pages.
func SpoolState(path string) (pages int, dying bool, written time.Time, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, time.Time{}, nil
	}
	if err != nil {
		return 0, false, time.Time{}, fmt.Errorf("open spool: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		written = fi.ModTime()
	}
	err = scanSpool(bufio.NewReaderSize(f, 256<<10), func(payload []byte) error {
		dying = len(payload) == 0
		if !dying {
			pages++
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrSpoolTruncated) {
		return pages, dying, written, fmt.Errorf("read spool %s: %w", path, err)
	}
	return pages, dying, written, nil
}

// Count returns the number of pages written.
func (s *Spool) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Size returns the bytes written, header included.
func (s *Spool) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// Close flushes the spool, syncs it to disk and closes it.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	err := s.w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("close spool %s: %w", f.Name(), err)
	}
	return nil
}

// ReadSpool calls fn for each page in the spool at path, in order. It
// stops at the first error fn returns. A spool cut short inside its last
// record yields every whole record and then an error wrapping
// ErrSpoolTruncated.
func ReadSpool(path string, fn func(*task.Page) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open spool: %w", err)
	}
	defer f.Close()
	if err := readSpool(bufio.NewReaderSize(f, 256<<10), fn); err != nil {
		return fmt.Errorf("read spool %s: %w", path, err)
	}
	return nil
}

func readSpool(r io.Reader, fn func(*task.Page) error) error {
	return scanSpool(r, func(payload []byte) error {
		if len(payload) == 0 {
			return nil // a mark
		}
		var p task.Page
		if err := json.Unmarshal(payload, &p); err != nil {
			return fmt.Errorf("%w: %v", ErrSpoolCorrupt, err)
		}
		return fn(&p)
	})
}

// scanSpool calls fn with each record's checked payload, in order.
func scanSpool(r io.Reader, fn func(payload []byte) error) error {
	magic := make([]byte, len(spoolMagic))
	if n, err := io.ReadFull(r, magic); err != nil {
		if n == 0 && err == io.EOF {
			return fmt.Errorf("%w: empty file", ErrSpoolTruncated)
		}
		return fmt.Errorf("%w: short header", ErrSpoolTruncated)
	}
	if string(magic) != spoolMagic {
		return fmt.Errorf("%w: not a spool file", ErrSpoolCorrupt)
	}
	var hdr [8]byte
	var payload []byte
	for rec := 0; ; rec++ {
		n, err := io.ReadFull(r, hdr[:])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: record %d: header has %d of 8 bytes", ErrSpoolTruncated, rec, n)
		}
		size := binary.BigEndian.Uint32(hdr[:4])
		if size > maxSpoolRecord {
			return fmt.Errorf("%w: record %d: length %d exceeds %d", ErrSpoolCorrupt, rec, size, maxSpoolRecord)
		}
		if cap(payload) < int(size) {
			payload = make([]byte, size)
		}
		payload = payload[:size]
		if n, err := io.ReadFull(r, payload); err != nil {
			return fmt.Errorf("%w: record %d: payload has %d of %d bytes", ErrSpoolTruncated, rec, n, size)
		}
		if crc32.Checksum(payload, crcTable) != binary.BigEndian.Uint32(hdr[4:]) {
			return fmt.Errorf("%w: record %d: checksum mismatch", ErrSpoolCorrupt, rec)
		}
		if err := fn(payload); err != nil {
			if errors.Is(err, ErrSpoolCorrupt) {
				return fmt.Errorf("record %d: %w", rec, err)
			}
			return err
		}
	}
}
