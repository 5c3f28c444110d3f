package storage

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/task"
)

// Record is one stored page's text as read back from its WARC record.
type Record struct {
	// Target is the record's WARC-Target-URI (the URL after redirects).
	Target string
	Title  string
	Date   time.Time
	// Signals are the content signals that applied to the page
	// (task.Page.Signals), "" when none did.
	Signals string
	// Text is the extracted text, at most the limit Read was given.
	Text string
	// Truncated says the text was longer than the limit.
	Truncated bool
	// File and Offset locate the record.
	Location
}

// LookupAll returns the index entries of urls; URLs not stored are absent.
func (s *Storage) LookupAll(urls []string) (map[string]Entry, error) {
	return s.idx.entries(urls)
}

// Read returns the latest stored text of URL u, at most limit bytes of it
// (0 = all). found is false when u is not stored or its page had no text.
// A record whose file was moved to the Archive is read from there.
func (s *Storage) Read(ctx context.Context, u string, limit int64) (rec Record, found bool, err error) {
	e, found, err := s.idx.entry(u)
	if err != nil || !found || e.File == "" {
		return Record{}, false, err
	}
	rec, err = s.readRecord(ctx, e.Location, limit)
	if err != nil {
		return Record{}, false, fmt.Errorf("read stored text of %s: %w", u, err)
	}
	return rec, true, nil
}

// readTimeout bounds readAt, which has no context of its own.
const readTimeout = time.Minute

// readAt is readRecord for the spot-checks, whose comparison runs without
// a context.
func (s *Storage) readAt(loc Location, limit int64) (Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	return s.readRecord(ctx, loc, limit)
}

// maxStoredRecord bounds the uncompressed bytes of one stored record
// read back: its text at most MaxTextBytes, and its header.
const maxStoredRecord = export.MaxTextBytes + 1<<20

// readRecord reads the conversion record at loc, from the WARC directory
// or, when the file is no longer there, from the Archive; at most limit
// bytes of its text (0 = all).
func (s *Storage) readRecord(ctx context.Context, loc Location, limit int64) (Record, error) {
	// The name comes from the index; Base keeps a damaged one inside the
	// WARC directory.
	name := filepath.Base(loc.File)
	var src io.ReadCloser
	f, err := os.Open(filepath.Join(WARCDir(s.opts.Dir), name))
	switch {
	case err == nil:
		if _, err := f.Seek(loc.Offset, io.SeekStart); err != nil {
			f.Close()
			return Record{}, err
		}
		src = f
	case errors.Is(err, fs.ErrNotExist) && s.opts.Archive != nil:
		if src, err = s.opts.Archive.OpenAt(ctx, warcObject(name), loc.Offset); err != nil {
			return Record{}, err
		}
	default:
		return Record{}, err
	}
	// The gzip member is read before gowarc is locked, so that a slow
	// object store does not hold up the WARC writer.
	raw, err := readMember(src, maxStoredRecord)
	src.Close()
	if err != nil {
		return Record{}, fmt.Errorf("record at %s:%d: %w", name, loc.Offset, err)
	}
	defer export.LockGowarc()()
	rd, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(raw), 0)
	if err != nil {
		return Record{}, err
	}
	defer rd.Close()
	wr, _, _, err := rd.Next()
	if err != nil {
		return Record{}, fmt.Errorf("record at %s:%d: %w", name, loc.Offset, err)
	}
	defer wr.Close()
	if wr.Type() != gowarc.Conversion {
		return Record{}, fmt.Errorf("record at %s:%d is %s, not a conversion", name, loc.Offset, wr.Type())
	}
	h := wr.WarcHeader()
	rec := Record{Target: h.Get(gowarc.WarcTargetURI), Title: h.Get(export.FieldTitle), Signals: h.Get(export.FieldSignals),
		Location: Location{File: name, Offset: loc.Offset}}
	if d, err := h.GetTime(gowarc.WarcDate); err == nil {
		rec.Date = d
	}
	body, err := wr.Block().RawBytes()
	if err != nil {
		return Record{}, err
	}
	var r io.Reader = body
	if limit > 0 {
		r = io.LimitReader(body, limit+1)
	}
	text, err := io.ReadAll(r)
	if err != nil && !errors.Is(err, io.EOF) {
		return Record{}, err
	}
	if limit > 0 && int64(len(text)) > limit {
		text, rec.Truncated = text[:limit], true
	}
	// A cut may split a character; drop its remains.
	rec.Text = strings.ToValidUTF8(string(text), "")
	return rec, nil
}

// readMember returns the uncompressed bytes of the gzip member r starts
// with, at most max of them; it reads no further than the member's end.
func readMember(r io.Reader, max int64) ([]byte, error) {
	zr, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	b, err := io.ReadAll(io.LimitReader(zr, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("record larger than %d bytes", max)
	}
	return b, nil
}

// ReadReceipts returns, by task ID, the receipts the storage module whose
// data directory is dataDir issued for the tasks ids, verified with key
// (the manager's public key). A task it stored no result of is absent. It
// reads the index of a stopped storage module: a running one holds the
// file's lock, and the call fails after a second.
func ReadReceipts(dataDir string, key crypto.PubKey, ids []string) (map[string]task.Receipt, error) {
	x, err := openIndex(filepath.Join(dataDir, indexFile), true)
	if err != nil {
		return nil, fmt.Errorf("read receipts: %w", err)
	}
	defer x.Close()
	out := make(map[string]task.Receipt, len(ids))
	for _, id := range ids {
		r, found, err := x.verifiedReceipt(id, key)
		if err != nil {
			return nil, fmt.Errorf("read receipts: %w", err)
		}
		if found {
			out[id] = r
		}
	}
	return out, nil
}

// Receipt returns the receipt the storage module issued for task id, and
// whether it stored a result of that task.
func (s *Storage) Receipt(id string) (task.Receipt, bool, error) {
	return s.idx.verifiedReceipt(id, s.opts.Key.GetPublic())
}

// Audit reads the index of a stopped storage module: what the demo and
// operators' tools check results against. Close it after use.
type Audit struct{ x *index }

// OpenAudit opens the index in data directory dataDir read-only; the
// storage module must be stopped (a running one holds the file's lock).
func OpenAudit(dataDir string) (*Audit, error) {
	x, err := openIndex(filepath.Join(dataDir, indexFile), true)
	if err != nil {
		return nil, fmt.Errorf("audit storage: %w", err)
	}
	return &Audit{x: x}, nil
}

// Close closes the index.
func (a *Audit) Close() error { return a.x.Close() }

// Totals returns the storage module's sums.
func (a *Audit) Totals() (Totals, error) { return a.x.totals() }

// Contributors returns every contributing peer, most credit first.
func (a *Audit) Contributors() ([]Contributor, error) { return a.x.contributors() }

// Verdicts returns every verdict given.
func (a *Audit) Verdicts() ([]Verdict, error) { return a.x.verdicts() }

// Lookup returns the index entry of URL u: the content the operator's
// index serves for it.
func (a *Audit) Lookup(u string) (Entry, bool, error) { return a.x.entry(u) }

// Pending reports whether the result of task id waits for a spot-check.
func (a *Audit) Pending(id string) (bool, error) {
	_, found, err := a.x.pendingCheck(id)
	return found, err
}
