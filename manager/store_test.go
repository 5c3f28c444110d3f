package manager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/manager/lease"
	"github.com/hivecrawl/hivecrawl/manager/profile"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket/buckettest"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestManagerStore runs a round with Options.Store naming a bucket on a
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
	m, err := New(ctx, Options{Dir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, AllowLoopback: true,
		Strategy: StrategyIIR, Now: clk.now, Logger: quiet, Submit: submitOpts,
		Channels: channels.Options{Prior: 90 * time.Second},
		Store:    "s3://crawl/net-1", Getenv: srv.Getenv, StoreRaw: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if _, err := m.AddSeeds([]string{"http://a.example/"}); err != nil {
		t.Fatal(err)
	}
	q, ph := onePeerOverlay(ctx, t, m)
	if err := m.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, envs := q.take()
	if len(tasks) != 1 {
		t.Fatalf("%d tasks, want 1", len(tasks))
	}
	prof, err := profile.Read(m.ProfilePath())
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := prof.Key()
	tk := tasks[0]
	if !tk.Raw {
		t.Fatal("the task does not ask for raw pages")
	}
	if _, err := lease.Send(ctx, ph, m.ID(), lease.Request{Op: lease.Claim, Task: envs[0], TaskID: tk.ID, Epoch: tk.Lease.Epoch}); err != nil {
		t.Fatal(err)
	}
	text := "the text of a.example, stored in a bucket"
	up := &storage.Uploader{Host: ph, Storage: m.ID(), Manager: pk}
	html := "<p>" + text + "</p>"
	raw, compression := textcodec.Encode([]byte(html))
	d := deliver(t, tk, envs[0], []*task.Page{{URL: tk.Seeds[0], Status: 200, FetchedAt: clk.now(), Digest: 1, Text: []byte(text),
		Raw: raw, RawCompression: compression, RawBytes: len(html), Header: map[string][]string{"Content-Type": {"text/html"}}}})
	if _, err := up.Upload(ctx, d); err != nil {
		t.Fatal(err)
	}
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
