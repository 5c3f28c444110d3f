package export

import (
	"bufio"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/task"
)

// Extension fields on conversion records, beyond WARC 1.1's own.
const (
	FieldTitle  = "Hivecrawl-Title"  // the page's title
	FieldDigest = "Hivecrawl-Digest" // task.Digest of the page body, 8 hex digits
	FieldStatus = "Hivecrawl-Status" // HTTP status of the fetch
	// FieldSignals holds the content signals that applied to the page
	// (task.Page.Signals): "ai-train=n, search=y".
	FieldSignals = "Hivecrawl-Content-Signals"
)

// WARCOptions configure a WARCWriter. Zero values take the defaults noted.
type WARCOptions struct {
	// Compress writes every record as its own gzip member (a .warc.gz file
	// that tools can seek into record by record).
	Compress bool
	// Software names the writer in the warcinfo record; default "hivecrawl".
	Software string
	// Filename is the warcinfo record's WARC-Filename; empty leaves it out.
	Filename string
	// Info are extra "name: value" fields for the warcinfo record, in order.
	Info [][2]string
	// Now gives the date of the warcinfo and summary records; default
	// time.Now.
	Now func() time.Time
	// OnRecord, when set, is called after each record is written, with
	// what an index of the file needs (CDXJ).
	OnRecord func(RecordInfo)
}

// RecordInfo describes a record as written, for an index beside the file.
type RecordInfo struct {
	// Type is the WARC-Type: "warcinfo", "conversion", "response",
	// "metadata".
	Type   string
	ID     string // WARC-Record-ID, "<urn:uuid:…>"
	Target string // WARC-Target-URI; "" for warcinfo and metadata
	Date   time.Time
	// Mime is the record's Content-Type, or for a response record the
	// HTTP Content-Type of the page.
	Mime string
	// Status is the HTTP status of the fetch; 0 when not known.
	Status int
	// Digest is the WARC-Payload-Digest; "" when the record has none.
	Digest string
	// Offset is where the record (its gzip member, when compressing)
	// starts in the output, Length its bytes there.
	Offset, Length int64
}

// WARCWriter writes WARC 1.1 to an io.Writer: a warcinfo record first, then
// one `conversion` record (Content-Type text/plain) per page with text, and
// optionally a `metadata` record with the task's summary. A page that
// carries its raw response (task.Page.Raw, when the task asked for it)
// gets a `response` record before its conversion record; the response
// names the conversion in WARC-Concurrent-To and the conversion the
// response in WARC-Refers-To (WARC 1.1 allows no WARC-Concurrent-To on a
// conversion record). A raw body that does not decompress is left out.
//
// Size tells how many bytes went out, so a caller can rotate files: Close
// the writer, close the file, open the next one and start a new WARCWriter
// on it. WARCWriter is not safe for concurrent use.
type WARCWriter struct {
	out      *countingWriter
	bw       *bufio.Writer
	gz       *gzip.Writer // reused for each record when compressing
	marshal  gowarc.Marshaler
	now      func() time.Time
	onRecord func(RecordInfo)
	records  int
	closed   bool
}

// ErrClosed is returned when writing to a closed WARCWriter.
var ErrClosed = errors.New("warc writer closed")

// NewWARCWriter writes the warcinfo record to w and returns a writer for
// the pages.
func NewWARCWriter(w io.Writer, opts WARCOptions) (*WARCWriter, error) {
	if opts.Software == "" {
		opts.Software = "hivecrawl"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	out := &countingWriter{w: w}
	ww := &WARCWriter{
		out:      out,
		bw:       bufio.NewWriterSize(out, 64<<10),
		marshal:  gowarc.NewMarshaler(),
		now:      opts.Now,
		onRecord: opts.OnRecord,
	}
	if opts.Compress {
		ww.gz, _ = gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // level is valid
	}

	var info strings.Builder
	fmt.Fprintf(&info, "software: %s\r\n", opts.Software)
	info.WriteString("format: WARC File Format 1.1\r\n")
	info.WriteString("conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
	for _, f := range opts.Info {
		fmt.Fprintf(&info, "%s: %s\r\n", f[0], f[1])
	}
	defer LockGowarc()()
	rb := gowarc.NewRecordBuilder(gowarc.Warcinfo)
	rb.AddWarcHeaderTime(gowarc.WarcDate, opts.Now())
	rb.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	if opts.Filename != "" {
		rb.AddWarcHeader(gowarc.WarcFilename, opts.Filename)
	}
	if _, err := rb.WriteString(info.String()); err != nil {
		return nil, fmt.Errorf("build warcinfo record: %w", err)
	}
	if err := ww.write(rb, RecordInfo{Type: gowarc.Warcinfo.String(), Date: opts.Now(), Mime: gowarc.ApplicationWarcFields}); err != nil {
		return nil, fmt.Errorf("write warcinfo record: %w", err)
	}
	return ww, nil
}

// Page writes p as a conversion record. Pages without text (unchanged,
// noindex, failed) are skipped, and so are pages whose content signals
// refused the crawl (task.Page.Refused), whatever they carry. It makes
// *WARCWriter a crawler.Sink.
func (w *WARCWriter) Page(p *task.Page) error {
	if w.closed {
		return ErrClosed
	}
	text, err := Text(p)
	if err != nil {
		return fmt.Errorf("export page %s: %w", p.URL, err)
	}
	if text == "" || p.Unchanged || p.Refused != "" {
		return nil
	}
	target := p.FinalURL
	if target == "" {
		target = p.URL
	}
	date := p.FetchedAt
	if date.IsZero() {
		date = time.Now()
	}
	digest := sha1Digest(text)

	defer LockGowarc()()
	var responseID, conversionID string
	if body, ok := rawBody(p); ok && p.Status >= 100 && p.Status <= 999 {
		responseID, conversionID = newRecordID(), newRecordID()
		if err := w.response(p, target, date, body, responseID, conversionID); err != nil {
			return err
		}
	}
	rb := gowarc.NewRecordBuilder(gowarc.Conversion)
	if conversionID != "" {
		rb.AddWarcHeader(gowarc.WarcRecordID, conversionID)
		rb.AddWarcHeader(gowarc.WarcRefersTo, responseID)
	}
	rb.AddWarcHeader(gowarc.WarcTargetURI, target)
	rb.AddWarcHeaderTime(gowarc.WarcDate, date)
	rb.AddWarcHeader(gowarc.ContentType, "text/plain; charset=utf-8")
	rb.AddWarcHeader(gowarc.WarcBlockDigest, digest)
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, digest)
	if p.Title != "" {
		rb.AddWarcHeader(FieldTitle, headerValue(p.Title))
	}
	rb.AddWarcHeader(FieldDigest, fmt.Sprintf("%08x", uint32(p.Digest)))
	rb.AddWarcHeader(FieldStatus, strconv.Itoa(p.Status))
	if sig := p.Signals; sig != "" {
		if len(sig) > task.MaxSignalsLen {
			sig = sig[:task.MaxSignalsLen]
		}
		rb.AddWarcHeader(FieldSignals, headerValue(strings.ToValidUTF8(sig, "")))
	}
	if _, err := rb.WriteString(text); err != nil {
		return fmt.Errorf("build record for %s: %w", target, err)
	}
	info := RecordInfo{Type: gowarc.Conversion.String(), Target: target, Date: date, Mime: "text/plain", Status: p.Status, Digest: digest}
	if err := w.write(rb, info); err != nil {
		return fmt.Errorf("write record for %s: %w", target, err)
	}
	return nil
}

// response writes p's raw response (body, decompressed) as a `response`
// record with ID id, before the conversion record of ID conversion
// (WARC-Concurrent-To), with gowarc locked.
func (w *WARCWriter) response(p *task.Page, target string, date time.Time, body []byte, id, conversion string) error {
	header, mime := httpHeader(p, len(body))
	digest := sha1Digest(string(body))
	rb := gowarc.NewRecordBuilder(gowarc.Response)
	rb.AddWarcHeader(gowarc.WarcRecordID, id)
	rb.AddWarcHeader(gowarc.WarcTargetURI, target)
	rb.AddWarcHeaderTime(gowarc.WarcDate, date)
	rb.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationHttp+";msgtype=response")
	rb.AddWarcHeader(gowarc.WarcConcurrentTo, conversion)
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, digest)
	if _, err := rb.Write(header); err != nil {
		return fmt.Errorf("build response record for %s: %w", target, err)
	}
	if _, err := rb.Write(body); err != nil {
		return fmt.Errorf("build response record for %s: %w", target, err)
	}
	info := RecordInfo{Type: gowarc.Response.String(), Target: target, Date: date, Mime: mime, Status: p.Status, Digest: digest}
	if err := w.write(rb, info); err != nil {
		return fmt.Errorf("write response record for %s: %w", target, err)
	}
	return nil
}

// Summary writes r as a `metadata` record (Content-Type application/json)
// about the crawl of r.Channel: the task's statistics, which WARC has no
// other place for. Call it once, after the last page.
func (w *WARCWriter) Summary(r *task.Result) error {
	if w.closed {
		return ErrClosed
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	defer LockGowarc()()
	date := w.now()
	rb := gowarc.NewRecordBuilder(gowarc.Metadata)
	rb.AddWarcHeaderTime(gowarc.WarcDate, date)
	rb.AddWarcHeader(gowarc.ContentType, "application/json")
	if _, err := rb.Write(b); err != nil {
		return fmt.Errorf("build summary record: %w", err)
	}
	if err := w.write(rb, RecordInfo{Type: gowarc.Metadata.String(), Date: date, Mime: "application/json"}); err != nil {
		return fmt.Errorf("write summary record: %w", err)
	}
	return nil
}

// write builds rb's record and marshals it, gzipped when asked, then
// tells OnRecord about it (info with its ID, offset and length added).
func (w *WARCWriter) write(rb gowarc.WarcRecordBuilder, info RecordInfo) error {
	rec, v, err := rb.Build()
	if err != nil {
		return err
	}
	defer rec.Close()
	if !v.Valid() {
		return fmt.Errorf("invalid record: %v", v)
	}
	info.ID, info.Offset = rec.WarcHeader().Get(gowarc.WarcRecordID), w.Size()
	var dst io.Writer = w.bw
	if w.gz != nil {
		w.gz.Reset(w.bw)
		dst = w.gz
	}
	if _, _, err := w.marshal.Marshal(dst, rec, 0); err != nil {
		return err
	}
	if w.gz != nil {
		if err := w.gz.Close(); err != nil {
			return err
		}
	}
	w.records++
	if w.onRecord != nil {
		info.Length = w.Size() - info.Offset
		w.onRecord(info)
	}
	return nil
}

// Records returns the number of records written, warcinfo included.
func (w *WARCWriter) Records() int { return w.records }

// Size returns the bytes written to the underlying writer so far plus those
// still buffered.
func (w *WARCWriter) Size() int64 { return w.out.n + int64(w.bw.Buffered()) }

// Flush writes buffered records to the underlying writer.
func (w *WARCWriter) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("flush warc: %w", err)
	}
	return nil
}

// Close flushes and ends the writer; further Pages fail with ErrClosed. It
// does not close the underlying writer, which the caller owns.
func (w *WARCWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	return w.Flush()
}

// sha1Digest returns a WARC digest value, "sha1:" and base32.
func sha1Digest(s string) string {
	sum := sha1.Sum([]byte(s))
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// headerValue makes s safe as a WARC header value: one line, no control
// characters.
func headerValue(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
