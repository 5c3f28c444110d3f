package storage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/task"
)

func FuzzDecodeHeader(f *testing.F) {
	f.Add([]byte(`{"task":"AAEC","result":{"task_id":"t","channel":"c","stats":{"pages_fetched":1,"started":"0001-01-01T00:00:00Z","duration":"1s","rtt":"0s","transfer":"0s","wait":"0s"}},"pages":2,"nickname":"n"}`))
	f.Add([]byte(`{"task":"","pages":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHeader(b)
		if err != nil {
			return
		}
		if h.Pages < 0 || h.Pages > MaxPages || len(h.Task) == 0 {
			t.Fatalf("accepted header out of range: %+v", h)
		}
		enc, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeHeader(enc); err != nil {
			t.Fatalf("re-encoded header refused: %v", err)
		}
	})
}

func FuzzDecodePage(f *testing.F) {
	f.Add([]byte(`{"url":"http://a.example/x","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":1,"digest":5,"text":"aGk=","out_links":0}`))
	f.Add([]byte(`{"url":"http://a.example/p","final_url":"http://a.example/p?x","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":1,"out_links":3,"duplicate_of":"http://a.example/c"}`))
	f.Add([]byte(`{"url":"javascript:alert(1)","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":0,"out_links":0}`))
	f.Add([]byte(`{"url":"http://a.example/r","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":0,"out_links":0,"text":"aGk=","raw":"PHA+aGk8L3A+","raw_bytes":9,"header":{"Content-Type":["text/html"],"X":[]}}`))
	f.Add([]byte(`{"url":"http://a.example/r","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":0,"out_links":0,"header":{"Content-Type":["text/html"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePage(b)
		if err != nil {
			return
		}
		if p.URL == "" || p.Status < 0 || p.Depth < 0 {
			t.Fatalf("accepted page out of range: %+v", p)
		}
		if len(p.Raw) > task.MaxRawBytes || p.RawBytes < 0 || task.HeaderSize(p.Header) > task.MaxHeaderBytes || len(p.Header) > 0 && len(p.Raw) == 0 {
			t.Fatalf("accepted raw response out of range: %d bytes, %d declared, header %v", len(p.Raw), p.RawBytes, p.Header)
		}
	})
}

// FuzzFrames feeds arbitrary bytes to the framing and response decoder.
func FuzzFrames(f *testing.F) {
	var buf bytes.Buffer
	frame.Write(&buf, &Response{Receipt: []byte("r"), Duplicate: true}, MaxResponseSize)
	f.Add(buf.Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(bytes.NewReader(b))
		frame, err := frame.ReadBytes(br, br, MaxResponseSize)
		if err != nil {
			return
		}
		if len(frame) > MaxResponseSize {
			t.Fatalf("frame of %d bytes passed the limit", len(frame))
		}
		DecodeResponse(frame)
	})
}

func FuzzScanWARC(f *testing.F) {
	var buf bytes.Buffer
	w, err := export.NewWARCWriter(&buf, export.WARCOptions{Compress: true})
	if err != nil {
		f.Fatal(err)
	}
	for _, u := range []string{"http://a.example/", "http://a.example/b"} {
		if err := w.Page(page(u, "text of "+u)); err != nil {
			f.Fatal(err)
		}
	}
	w.Close()
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()-7])
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add([]byte("WARC/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var last int64
		end, err := scanWARC(context.Background(), bytes.NewReader(data), func(i export.RecordInfo) error {
			if i.Offset < last || i.Length <= 0 || i.Offset+i.Length > int64(len(data)) {
				t.Fatalf("record %+v out of place (previous ended at %d, %d bytes)", i, last, len(data))
			}
			last = i.Offset + i.Length
			return nil
		})
		if end < last || end > int64(len(data)) || err == nil && end != int64(len(data)) {
			t.Fatalf("end %d of %d bytes, last record ends at %d, err %v", end, len(data), last, err)
		}
	})
}

func FuzzCDXJLine(f *testing.F) {
	f.Add("http://www.example.com/a?b=1&a=2", "text/html; charset=utf-8", "sha1:AB")
	f.Add("http://ex ample/\x00\"\\ü\U0001F600", "", "")
	f.Add("not a url at all", "a b", "x")
	f.Fuzz(func(t *testing.T, target, mime, digest string) {
		line := cdxjLine(export.RecordInfo{Type: "conversion", Target: target, Mime: mime, Digest: digest, Length: 1}, "f.warc.gz")
		if !bytes.HasSuffix(line, []byte("}\n")) || bytes.Count(line, []byte("\n")) != 1 {
			t.Fatalf("line %q is not one line", line)
		}
		key, rest, _ := bytes.Cut(line, []byte(" "))
		ts, block, _ := bytes.Cut(rest, []byte(" "))
		if len(key) == 0 || len(ts) != 14 {
			t.Fatalf("line %q: key %q, time %q", line, key, ts)
		}
		var fields map[string]string
		if err := json.Unmarshal(block, &fields); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if want := string([]rune(target)); target != "" && fields["url"] != want {
			t.Fatalf("url %q back as %q", want, fields["url"])
		}
		for _, c := range block {
			if c >= 0x80 {
				t.Fatalf("line %q: non-ASCII in the JSON block", line)
			}
		}
	})
}
