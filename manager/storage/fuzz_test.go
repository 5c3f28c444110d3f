package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hivecrawl/hivecrawl/crawler/export"
)

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
