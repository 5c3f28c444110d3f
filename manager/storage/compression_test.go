package storage

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/nlnwa/gowarc"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestUploadCompressions: storage keeps the text of uploads from clients
// before the text dictionary (plain zstd), from current ones (zstd with
// dictionary text-1) and uncompressed, and refuses an unknown one.
func TestUploadCompressions(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tk, env := r.issue(t, 1)
	up, _ := r.client(t)
	plain, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"http://site.example/old":  "Text uploaded by a client from before the dictionary.",
		"http://site.example/new":  "Text uploaded by a current client, with the text dictionary.",
		"http://site.example/none": "Text uploaded without compression.",
		"http://site.example/odd":  "Text in a compression nobody knows.",
	}
	old := page("http://site.example/old", texts["http://site.example/old"])
	old.Text, old.Compression = plain.EncodeAll(old.Text, nil), textcodec.Zstd
	cur := page("http://site.example/new", texts["http://site.example/new"])
	cur.Text, cur.Compression = textcodec.Encode(cur.Text)
	none := page("http://site.example/none", texts["http://site.example/none"])
	odd := page("http://site.example/odd", texts["http://site.example/odd"])
	odd.Compression = "brotli"
	raw, err := up.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{old, cur, none, odd}, nil))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := VerifyReceipt(raw, r.key.GetPublic())
	if err != nil || rc.PagesAccepted != 3 {
		t.Fatalf("receipt %+v, %v; want 3 pages accepted", rc, err)
	}
	got := conversionTexts(t, r.dir)
	for u, want := range texts {
		if u == "http://site.example/odd" {
			if _, ok := got[u]; ok {
				t.Errorf("stored a page in an unknown compression")
			}
			continue
		}
		if got[u] != want {
			t.Errorf("%s stored as %q, want %q", u, got[u], want)
		}
	}
}

// conversionTexts returns the text of each WARC conversion record in dir
// by target URI.
func conversionTexts(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(WARCDir(dir), "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files: %v", err)
	}
	out := map[string]string{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := gowarc.NewWarcFileReaderFromStream(f, 0)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, _, _, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rec.Type() == gowarc.Conversion {
				r, err := rec.Block().RawBytes()
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				out[rec.WarcHeader().Get(gowarc.WarcTargetURI)] = strings.TrimSpace(string(b))
			}
			rec.Close()
		}
		f.Close()
	}
	return out
}
