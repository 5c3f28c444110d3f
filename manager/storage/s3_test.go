package storage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket/buckettest"
	"github.com/hivecrawl/hivecrawl/manager/storage/warciotest"
)

// s3Rig is a storage module whose WARC files go to a bucket on a real
// S3-compatible server.
type s3Rig struct {
	*rig
	srv *buckettest.Server
	b   *bucket.Bucket
}

func newS3Rig(t *testing.T, opt func(*Options)) *s3Rig {
	t.Helper()
	srv := buckettest.Start(t)
	srv.MakeBucket("crawl")
	b := srv.Open("s3://crawl/hivecrawl/main")
	r := newRigWith(t, func(o *Options) {
		o.MaxFileSize, o.Archive, o.RetryWait, o.CloseTimeout = 1500, b, 10*time.Millisecond, 20*time.Second
		if opt != nil {
			opt(o)
		}
	})
	return &s3Rig{rig: r, srv: srv, b: b}
}

// objects returns the names of the WARC files in the bucket.
func (r *s3Rig) objects(t *testing.T) []string {
	t.Helper()
	names, err := warcFiles(filepath.Join(r.srv.Root, "crawl", "hivecrawl", "main", "warc"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return names
}

// download reads object name whole through the S3 API.
func (r *s3Rig) download(t *testing.T, name string) []byte {
	t.Helper()
	rc, err := r.b.OpenAt(context.Background(), name, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkBucket checks that every WARC file is in the bucket with its CDXJ
// and none is left locally, that the CDXJ lines point at the records,
// that every page of want is there once, and returns the objects' bytes
// by name.
func (r *s3Rig) checkBucket(t *testing.T, want map[string]string) map[string][]byte {
	t.Helper()
	if left, _ := os.ReadDir(WARCDir(r.dir)); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Fatalf("left in the WARC directory: %v", names)
	}
	files := map[string][]byte{}
	seen := map[string]int{}
	for _, name := range r.objects(t) {
		data := r.download(t, warcObject(name))
		files[name] = data
		for _, u := range checkCDXJ(t, name, data, r.download(t, cdxjObject(name)), want) {
			seen[u]++
		}
		if _, err := scanWARC(context.Background(), bytes.NewReader(data), func(export.RecordInfo) error { return nil }); err != nil {
			t.Errorf("object %s: %v", name, err)
		}
	}
	for u := range want {
		if seen[u] != 1 {
			t.Errorf("%s listed %d times in the bucket's CDXJ", u, seen[u])
		}
	}
	return files
}

// TestS3Store stores pages with files rolled small: the files and their
// CDXJ go to the bucket, warcio reads every record back from the
// objects, and the pages read back with their files gone locally.
func TestS3Store(t *testing.T) {
	warcio := warciotest.Install(t)
	r := newS3Rig(t, nil)
	want := storeRounds(t, r.rig, 3, 6)
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	files := r.checkBucket(t, want)
	if len(files) < 3 {
		t.Fatalf("%d files in the bucket; want them rolled at 1500 bytes", len(files))
	}

	// warcio (JavaScript) reads the objects as downloaded.
	dl := t.TempDir()
	var paths []string
	for name, data := range files {
		p := filepath.Join(dl, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	recs := warcio.Read(t, paths...)
	conversions := 0
	for _, rec := range recs {
		if rec.Declared != rec.Computed && rec.Declared != "" {
			t.Errorf("%s %s: declared %s, warcio computed %s", rec.Type, rec.Target, rec.Declared, rec.Computed)
		}
		if rec.Type == "conversion" {
			conversions++
			if _, ok := want[rec.Target]; !ok {
				t.Errorf("warcio read an unknown page %s", rec.Target)
			}
		}
	}
	if conversions != len(want) || len(recs) != len(want)+len(files) {
		t.Fatalf("warcio read %d records, %d conversions, from %d files; want %d conversions", len(recs), conversions, len(files), len(want))
	}

	// The local files are gone: the pages read from the bucket.
	r.reopen(t)
	r.readsBack(t, want, "from the bucket")
}

// TestS3Crash: a manager that kept its WARC files locally and stopped
// without Close in the middle of a record is started with the bucket:
// the closed files and the leftover (cut back to its last whole record)
// are indexed and uploaded, and nothing is lost.
func TestS3Crash(t *testing.T) {
	r := newS3Rig(t, nil)
	archive := r.opts.Archive
	r.st.Close()
	r.opts.Archive = nil
	r.reopen(t)
	want := storeRounds(t, r.rig, 3, 6)
	r.crash(t)
	leftover, whole := cutShort(t, WARCDir(r.dir))
	r.opts.Archive = archive
	r.reopen(t)
	r.readsBack(t, want, "after the crash")
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	files := r.checkBucket(t, want)
	if len(files) < 3 || int64(len(files[leftover])) != whole {
		t.Fatalf("%d files in the bucket, the leftover %s of %d bytes; want it cut back to %d", len(files), leftover, len(files[leftover]), whole)
	}
}

// TestS3UploadRetries: uploads that fail while the object store is down
// are retried, and the files go up once it is back.
func TestS3UploadRetries(t *testing.T) {
	logs := &logWatch{msgs: make(chan string, 64)}
	r := newS3Rig(t, func(o *Options) { o.Logger = slog.New(logs) })
	r.srv.Stop()
	want := map[string]string{}
	pages, texts := textPages(1, 8)
	storePages(t, r.rig, 1, pages)
	for u, text := range texts {
		want[u] = text
	}
	logs.await(t, "WARC upload failed; retrying")
	if names := r.objects(t); len(names) != 0 {
		t.Fatalf("objects %v while the store was down", names)
	}
	r.srv.Restart()
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	r.checkBucket(t, want)
}

// logWatch is a slog handler that passes messages on to a test.
type logWatch struct{ msgs chan string }

func (l *logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (l *logWatch) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logWatch) WithGroup(string) slog.Handler            { return l }
func (l *logWatch) Handle(_ context.Context, r slog.Record) error {
	select {
	case l.msgs <- r.Message:
	default:
	}
	return nil
}

// await waits for message msg; a minute without it fails the test.
func (l *logWatch) await(t *testing.T, msg string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case m := <-l.msgs:
			if m == msg {
				return
			}
		case <-timeout:
			t.Fatalf("no %q logged", msg)
		}
	}
}
