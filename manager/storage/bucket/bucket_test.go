package bucket_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hivecrawl/hivecrawl/manager/storage/bucket"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket/buckettest"
)

// TestPutAndRead uploads files to a real S3-compatible server (versitygw)
// and reads them back whole and from offsets.
func TestPutAndRead(t *testing.T) {
	srv := buckettest.Start(t)
	srv.MakeBucket("crawl")
	ctx := context.Background()
	b := srv.Open("s3://crawl/run-1")
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	data := []byte("0123456789abcdefghij")
	if err := os.WriteFile(small, data, 0o644); err != nil {
		t.Fatal(err)
	}
	obj, err := b.Put(ctx, "warc/small.warc.gz", small, "application/warc")
	if err != nil {
		t.Fatal(err)
	}
	if obj.Key != "run-1/warc/small.warc.gz" || obj.Size != int64(len(data)) || obj.ETag == "" {
		t.Fatalf("Put = %+v", obj)
	}
	// The posix backend keeps the object as a file under its bucket.
	if got, err := os.ReadFile(filepath.Join(srv.Root, "crawl", "run-1", "warc", "small.warc.gz")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("object file: %q, %v", got, err)
	}
	for _, off := range []int64{0, 1, 10, 19} {
		rc, err := b.OpenAt(ctx, "warc/small.warc.gz", off)
		if err != nil {
			t.Fatalf("OpenAt %d: %v", off, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, data[off:]) {
			t.Fatalf("OpenAt %d = %q, %v; want %q", off, got, err, data[off:])
		}
	}
	if st, err := b.Stat(ctx, "warc/small.warc.gz"); err != nil || st != obj {
		t.Fatalf("Stat = %+v, %v; want %+v", st, err, obj)
	}
	if _, err := b.OpenAt(ctx, "warc/missing", 0); !errors.Is(err, bucket.ErrNotFound) {
		t.Fatalf("OpenAt of a missing object: %v", err)
	}
	if _, err := b.Stat(ctx, "warc/missing"); !errors.Is(err, bucket.ErrNotFound) {
		t.Fatalf("Stat of a missing object: %v", err)
	}
	// Put replaces.
	if err := os.WriteFile(small, []byte("replaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	if obj, err := b.Put(ctx, "warc/small.warc.gz", small, "application/warc"); err != nil || obj.Size != 8 {
		t.Fatalf("second Put = %+v, %v", obj, err)
	}
}

// TestPutMultipart uploads a file in parts and confirms it.
func TestPutMultipart(t *testing.T) {
	srv := buckettest.Start(t)
	srv.MakeBucket("crawl")
	cfg, err := bucket.FromEnv("s3://crawl", srv.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PartSize = 5 << 20
	b, err := bucket.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 11<<20)
	rand.Read(data)
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	obj, err := b.Put(context.Background(), "warc/big", path, "application/warc")
	if err != nil {
		t.Fatal(err)
	}
	if obj.Size != int64(len(data)) || !bytes.HasSuffix([]byte(obj.ETag), []byte("-3")) {
		t.Fatalf("Put = %+v; want %d bytes in 3 parts", obj, len(data))
	}
	rc, err := b.OpenAt(context.Background(), "warc/big", 6<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if got, err := io.ReadAll(rc); err != nil || !bytes.Equal(got, data[6<<20:]) {
		t.Fatalf("OpenAt after the first part: %d bytes, %v", len(got), err)
	}
}

// TestOpenMissingBucket refuses a bucket that does not exist, and wrong
// credentials.
func TestOpenMissingBucket(t *testing.T) {
	srv := buckettest.Start(t)
	cfg, err := bucket.FromEnv("s3://nothing-here", srv.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bucket.Open(context.Background(), cfg); !errors.Is(err, bucket.ErrNotFound) {
		t.Fatalf("Open of a missing bucket: %v", err)
	}
	srv.MakeBucket("crawl")
	cfg.Location.Bucket, cfg.SecretKey = "crawl", "wrong"
	if _, err := bucket.Open(context.Background(), cfg); err == nil {
		t.Fatal("Open with a wrong secret key succeeded")
	}
}
