package manager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket/buckettest"
	"github.com/hivecrawl/hivecrawl/proto/profile"
	"github.com/hivecrawl/hivecrawl/proto/upload"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestManagerStore runs a round with Options.Storage.Store naming a bucket on a
// real S3-compatible server and StoreRaw set: the task asks for raw pages,
// the stored page reads back, and once the manager is closed its WARC
// file (with the raw response record) and CDXJ are in the bucket and not
// in the data directory.
func TestManagerStore(t *testing.T) {
	srv := buckettest.Start(t)
	srv.MakeBucket("crawl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	dir := t.TempDir()
	m := newManagerWith(t, dir, clk, func(o *Options) {
		o.Storage.Store, o.Storage.Getenv, o.Storage.StoreRaw = "s3://crawl/net-1", srv.Getenv, true
	})
	q, tk, env, ph := firstTask(ctx, t, m)
	prof, err := profile.Read(m.ProfilePath())
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := prof.Key()
	if !tk.Raw {
		t.Fatal("the task does not ask for raw pages")
	}
	text := "the text of a.example, stored in a bucket"
	up := &upload.Uploader{Host: ph, Storage: m.ID(), Manager: pk}
	html := "<p>" + text + "</p>"
	raw, compression := textcodec.Encode([]byte(html))
	claimAndUpload(ctx, t, ph, m.ID(), up, tk, env, q.proof(tk.ID), []*task.Page{{URL: tk.Seeds[0], Status: 200, FetchedAt: clk.now(), Digest: 1, Text: []byte(text),
		Raw: raw, RawCompression: compression, RawBytes: len(html), Header: map[string][]string{"Content-Type": {"text/html"}}}})
	if rec, found, err := m.Storage().Read(ctx, tk.Seeds[0], 0); err != nil || !found || rec.Text != text {
		t.Fatalf("Read = %q, %v, %v", rec.Text, found, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(storage.WARCDir(dir), "hivecrawl-*")); len(left) != 0 {
		t.Fatalf("left in the data directory: %v", left)
	}
	for _, pattern := range []string{"warc/hivecrawl-*.warc.gz", "cdxj/hivecrawl-*.cdxj"} {
		got, _ := filepath.Glob(filepath.Join(srv.Root, "crawl", "net-1", pattern))
		if len(got) != 1 {
			t.Fatalf("%d objects %s in the bucket, want 1", len(got), pattern)
		}
		b, err := os.ReadFile(got[0])
		if err != nil || len(b) == 0 {
			t.Fatalf("object %s: %v", got[0], err)
		}
		if pattern == "cdxj/hivecrawl-*.cdxj" && (!strings.Contains(string(b), `"mime": "text/html"`) || !strings.Contains(string(b), `"mime": "text/plain"`)) {
			t.Fatalf("CDXJ without the response and conversion records:\n%s", b)
		}
	}
}
