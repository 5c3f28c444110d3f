package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// Both writers are crawler sinks.
var (
	_ crawler.Sink = (*JSONL)(nil)
	_ crawler.Sink = (*WARCWriter)(nil)
)

var fetched = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func zstdText(t testing.TB, s string) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll([]byte(s), nil)
}

// samplePages returns pages of every kind: compressed text, raw text, an
// unchanged page, a failure, a redirected page with non-ASCII text.
func samplePages(t testing.TB) []*task.Page {
	return []*task.Page{
		{URL: "http://a.test/", Status: 200, FetchedAt: fetched, Digest: 0xdeadbeef, Title: "Home",
			Text: zstdText(t, "Welcome home.\nSecond line."), Compression: "zstd", OutLinks: 4},
		{URL: "http://a.test/raw", Status: 200, FetchedAt: fetched, Digest: 1, Title: "Raw",
			Text: []byte("plain text"), Signals: "ai-train=n, search=y"},
		{URL: "http://a.test/same", Status: 200, FetchedAt: fetched, Digest: 2, Unchanged: true},
		{URL: "http://a.test/gone", Status: 404, FetchedAt: fetched, Error: "http_404"},
		{URL: "http://a.test/old", FinalURL: "http://a.test/new", Status: 200, FetchedAt: fetched, Digest: 3,
			Title: "Line\nbreak", Text: zstdText(t, "Grüße, 世界 \xff"), Compression: "zstd", Depth: 1},
	}
}

func TestText(t *testing.T) {
	bomb := zstdText(t, strings.Repeat("\x00", MaxTextBytes+1))
	tests := []struct {
		name    string
		page    task.Page
		want    string
		wantErr bool
	}{
		{"none", task.Page{}, "", false},
		{"raw", task.Page{Text: []byte("hi")}, "hi", false},
		{"zstd", task.Page{Text: zstdText(t, "héllo"), Compression: "zstd"}, "héllo", false},
		{"invalid utf8 replaced", task.Page{Text: []byte("a\xffb")}, "a\uFFFDb", false},
		{"unknown compression", task.Page{Text: []byte("x"), Compression: "lz4"}, "", true},
		{"corrupt zstd", task.Page{Text: []byte("not zstd"), Compression: "zstd"}, "", true},
		{"bomb", task.Page{Text: bomb, Compression: "zstd"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Text(&tt.page)
			if (err != nil) != tt.wantErr || tt.wantErr && !errors.Is(err, ErrCompression) {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("text = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJSONL(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSONL(&buf)
	for _, p := range samplePages(t) {
		if err := j.Page(p); err != nil {
			t.Fatal(err)
		}
	}
	res := &task.Result{TaskID: "t1", Channel: "a.test", Stats: task.Stats{PagesFetched: 5, PagesUnchanged: 1}}
	if err := j.Summary(res); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), buf.String())
	}
	want := []PageLine{
		{Type: "page", URL: "http://a.test/", Status: 200, Digest: "deadbeef", Title: "Home", Text: "Welcome home.\nSecond line.", OutLinks: 4},
		{Type: "page", URL: "http://a.test/raw", Status: 200, Digest: "00000001", Title: "Raw", Text: "plain text", Signals: "ai-train=n, search=y"},
		{Type: "page", URL: "http://a.test/same", Status: 200, Digest: "00000002", Unchanged: true},
		{Type: "page", URL: "http://a.test/gone", Status: 404, Error: "http_404"},
		{Type: "page", URL: "http://a.test/old", FinalURL: "http://a.test/new", Status: 200, Digest: "00000003",
			Title: "Line\nbreak", Text: "Grüße, 世界 \uFFFD", Depth: 1},
	}
	for k, w := range want {
		var got PageLine
		if err := json.Unmarshal([]byte(lines[k]), &got); err != nil {
			t.Fatalf("line %d: %v", k, err)
		}
		w.FetchedAt = fetched
		if got != w {
			t.Errorf("line %d:\n got %+v\nwant %+v", k, got, w)
		}
	}
	var sum struct {
		Type   string     `json:"type"`
		TaskID string     `json:"task_id"`
		Stats  task.Stats `json:"stats"`
	}
	if err := json.Unmarshal([]byte(lines[5]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Type != "summary" || sum.TaskID != "t1" || sum.Stats.PagesFetched != 5 {
		t.Errorf("summary line %s", lines[5])
	}
}

func TestJSONLBadText(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSONL(&buf)
	err := j.Page(&task.Page{URL: "http://a.test/", Text: []byte("x"), Compression: "zstd"})
	if !errors.Is(err, ErrCompression) || !strings.Contains(err.Error(), "http://a.test/") {
		t.Fatalf("err = %v, want ErrCompression naming the URL", err)
	}
}

// readWARC reads every record of a WARC stream with strict validation and
// verified digests.
func readWARC(t *testing.T, r io.Reader) []gowarc.WarcRecord {
	t.Helper()
	rd, err := gowarc.NewWarcFileReaderFromStream(r, 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []gowarc.WarcRecord
	for {
		rec, _, v, err := rd.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(recs), err)
		}
		if !v.Valid() {
			t.Fatalf("record %d invalid: %v", len(recs), v)
		}
		if err := rec.ValidateDigest(v); err != nil || !v.Valid() {
			t.Fatalf("record %d digest: %v %v", len(recs), err, v)
		}
		recs = append(recs, rec)
	}
}

func TestWARCWriter(t *testing.T) {
	tests := []struct {
		name     string
		compress bool
	}{
		{"plain", false},
		{"gzip", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWARCWriter(&buf, WARCOptions{
				Compress: tt.compress, Filename: "x.warc", Info: [][2]string{{"operator", "test"}},
				Now: func() time.Time { return fetched },
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range samplePages(t) {
				if err := w.Page(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Summary(&task.Result{TaskID: "t9", Stats: task.Stats{PagesFetched: 5}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if w.Records() != 5 || w.Size() != int64(buf.Len()) {
				t.Fatalf("Records %d Size %d, want 5 and %d", w.Records(), w.Size(), buf.Len())
			}
			if err := w.Page(samplePages(t)[0]); !errors.Is(err, ErrClosed) {
				t.Fatalf("Page after Close: %v", err)
			}
			if gz := bytes.HasPrefix(buf.Bytes(), []byte{0x1f, 0x8b}); gz != tt.compress {
				t.Fatalf("gzip magic %v, want %v", gz, tt.compress)
			}

			recs := readWARC(t, &buf)
			if len(recs) != 5 {
				t.Fatalf("%d records, want 5 (warcinfo + 3 pages with text + summary)", len(recs))
			}
			if sum := recs[4]; sum.Type() != gowarc.Metadata || sum.WarcHeader().Get(gowarc.ContentType) != "application/json" ||
				!strings.Contains(blockText(t, sum), `"task_id":"t9"`) {
				t.Errorf("summary record %v: %q", sum, blockText(t, sum))
			}
			if recs[0].Type() != gowarc.Warcinfo || recs[0].WarcHeader().Get(gowarc.WarcFilename) != "x.warc" {
				t.Fatalf("first record %v", recs[0])
			}
			info := blockText(t, recs[0])
			if !strings.Contains(info, "operator: test\r\n") || !strings.Contains(info, "software: hivecrawl") {
				t.Errorf("warcinfo block %q", info)
			}
			want := []struct{ uri, text, title, signals string }{
				{"http://a.test/", "Welcome home.\nSecond line.", "Home", ""},
				{"http://a.test/raw", "plain text", "Raw", "ai-train=n, search=y"},
				{"http://a.test/new", "Grüße, 世界 \uFFFD", "Line break", ""},
			}
			for k, w := range want {
				rec := recs[k+1]
				h := rec.WarcHeader()
				if rec.Type() != gowarc.Conversion || h.Get(gowarc.WarcTargetURI) != w.uri ||
					h.Get(gowarc.ContentType) != "text/plain; charset=utf-8" || h.Get(FieldTitle) != w.title ||
					h.Get(FieldSignals) != w.signals {
					t.Errorf("record %d headers: %v", k+1, h)
				}
				if d, _ := h.GetTime(gowarc.WarcDate); !d.Equal(fetched) {
					t.Errorf("record %d date %v", k+1, d)
				}
				if h.Get(gowarc.WarcPayloadDigest) != sha1Digest(w.text) || h.Get(gowarc.WarcBlockDigest) != sha1Digest(w.text) {
					t.Errorf("record %d digests %v", k+1, h)
				}
				if got := blockText(t, rec); got != w.text {
					t.Errorf("record %d text %q, want %q", k+1, got, w.text)
				}
			}
		})
	}
}

// TestWARCSkipsRefusedPages: a page whose content signals refused the
// crawl is not written, even carrying text.
func TestWARCSkipsRefusedPages(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWARCWriter(&buf, WARCOptions{Now: func() time.Time { return fetched }})
	if err != nil {
		t.Fatal(err)
	}
	p := &task.Page{URL: "http://a.test/no", Status: 200, FetchedAt: fetched, Digest: 7, Text: []byte("text"),
		Refused: "Content-Usage header: search=n", Signals: "search=n"}
	if err := w.Page(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Records() != 1 {
		t.Fatalf("%d records, want the warcinfo only", w.Records())
	}
}

func blockText(t *testing.T, rec gowarc.WarcRecord) string {
	t.Helper()
	r, err := rec.Block().RawBytes()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWARCWriterReportsWriteErrors(t *testing.T) {
	w, err := NewWARCWriter(failWriter{}, WARCOptions{})
	if err != nil {
		t.Fatal(err) // the warcinfo record is still buffered
	}
	if err := w.Page(samplePages(t)[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close = %v, want the write error", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func FuzzText(f *testing.F) {
	f.Add([]byte("plain"), false)
	f.Add(zstdText(f, "hello world"), true)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, b []byte, compressed bool) {
		p := &task.Page{URL: "http://a.test/", Text: b}
		if compressed {
			p.Compression = "zstd"
		}
		s, err := Text(p)
		if err != nil {
			return
		}
		if len(s) > 3*MaxTextBytes {
			t.Fatalf("text of %d bytes", len(s))
		}
		var buf bytes.Buffer
		if err := NewJSONL(&buf).Page(p); err != nil {
			t.Fatal(err)
		}
		w, err := NewWARCWriter(io.Discard, WARCOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Page(p); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWARCWritersInParallel: writers in several goroutines (two storage
// modules in one process, or one writing while it reads) share gowarc's
// process-wide state; under the race detector this fails without
// LockGowarc.
func TestWARCWritersInParallel(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := NewWARCWriter(io.Discard, WARCOptions{Compress: true})
			if err != nil {
				t.Error(err)
				return
			}
			for range 20 {
				for _, p := range samplePages(t) {
					if err := w.Page(p); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// recordingWriter returns a compressing WARC writer to buf and the
// records its OnRecord reports, in order.
func recordingWriter(t *testing.T, buf *bytes.Buffer) (*WARCWriter, *[]RecordInfo) {
	t.Helper()
	infos := &[]RecordInfo{}
	w, err := NewWARCWriter(buf, WARCOptions{Compress: true, Now: func() time.Time { return fetched },
		OnRecord: func(i RecordInfo) { *infos = append(*infos, i) }})
	if err != nil {
		t.Fatal(err)
	}
	return w, infos
}

// TestWARCWriterOnRecord checks what OnRecord reports: every record, in
// order, each at the offset and with the length of its own gzip member.
func TestWARCWriterOnRecord(t *testing.T) {
	var buf bytes.Buffer
	w, infos := recordingWriter(t, &buf)
	for _, p := range samplePages(t) {
		if err := w.Page(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Summary(&task.Result{TaskID: "t9"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wantTypes := []string{"warcinfo", "conversion", "conversion", "conversion", "metadata"}
	if len(*infos) != len(wantTypes) {
		t.Fatalf("%d records reported, want %d", len(*infos), len(wantTypes))
	}
	var next int64
	for i, info := range *infos {
		if info.Type != wantTypes[i] || info.Offset != next || info.Length <= 0 {
			t.Fatalf("record %d: %+v; want a %s at %d", i, info, wantTypes[i], next)
		}
		next = info.Offset + info.Length
		// The member alone is the whole record.
		recs := readWARC(t, bytes.NewReader(buf.Bytes()[info.Offset:next]))
		if len(recs) != 1 || recs[0].Type().String() != info.Type || recs[0].WarcHeader().Get(gowarc.WarcRecordID) != info.ID {
			t.Fatalf("member of record %d (%+v) holds %v", i, info, recs)
		}
		h := recs[0].WarcHeader()
		if info.Type == "conversion" && (h.Get(gowarc.WarcTargetURI) != info.Target ||
			h.Get(gowarc.WarcPayloadDigest) != info.Digest || info.Status != 200 || info.Mime != "text/plain") {
			t.Errorf("record %d: %+v, header %v", i, info, h)
		}
	}
	if next != int64(buf.Len()) {
		t.Fatalf("records end at %d, output at %d", next, buf.Len())
	}
}

// TestWARCWriterResponse writes a page with its raw response: a response
// record with the HTTP header and body before the conversion record, the
// two linked both ways, strictly valid; a raw body that does not
// decompress is left out.
func TestWARCWriterResponse(t *testing.T) {
	body := "<html><body><p>Raw body.</p></body></html>"
	raw, name := textcodec.Encode([]byte(body))
	p := &task.Page{URL: "http://a.test/r", Status: 200, FetchedAt: fetched, Text: []byte("Raw body."),
		Raw: raw, RawCompression: name, RawBytes: len(body),
		Header: map[string][]string{"Content-Type": {"text/html; charset=utf-8"}, "Content-Encoding": {"gzip"},
			"Bad Name": {"x"}, "X-Bad-Value": {"a\r\nInjected: 1"}, "Etag": {`"v1"`}}}
	broken := &task.Page{URL: "http://a.test/broken", Status: 200, FetchedAt: fetched, Text: []byte("Text only."),
		Raw: []byte("not zstd"), RawCompression: textcodec.Zstd}
	var buf bytes.Buffer
	w, infos := recordingWriter(t, &buf)
	if err := w.Page(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Page(broken); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs := readWARC(t, &buf)
	var types []string
	for _, r := range recs {
		types = append(types, r.Type().String())
	}
	if strings.Join(types, " ") != "warcinfo response conversion conversion" {
		t.Fatalf("records %v", types)
	}
	resp, conv := recs[1], recs[2]
	if resp.WarcHeader().GetId(gowarc.WarcConcurrentTo) != conv.WarcHeader().GetId(gowarc.WarcRecordID) ||
		conv.WarcHeader().GetId(gowarc.WarcRefersTo) != resp.WarcHeader().GetId(gowarc.WarcRecordID) {
		t.Fatalf("records not linked: response %v, conversion %v", resp.WarcHeader(), conv.WarcHeader())
	}
	block := blockText(t, resp)
	want := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nEtag: \"v1\"\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if block != want {
		t.Fatalf("response block %q, want %q", block, want)
	}
	if resp.WarcHeader().Get(gowarc.WarcTargetURI) != p.URL || resp.WarcHeader().Get(gowarc.WarcPayloadDigest) != sha1Digest(body) {
		t.Fatalf("response header %v", resp.WarcHeader())
	}
	if got := (*infos)[1]; got.Type != "response" || got.Mime != "text/html; charset=utf-8" || got.Status != 200 || got.ID != resp.WarcHeader().Get(gowarc.WarcRecordID) {
		t.Fatalf("response reported as %+v", got)
	}
}
