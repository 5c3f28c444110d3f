package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/storage"
	"github.com/hivecrawl/hivecrawl/manager/storage/bucket/buckettest"
)

// TestManagerStoreKilled runs `hivecrawl manager --store s3://…` as a
// process against a real S3-compatible server, stores a result, kills the
// manager with SIGKILL before its WARC file was closed, and restarts it:
// the file left behind is indexed and uploaded at start, and the stored
// page is still the manager's.
func TestManagerStoreKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := buckettest.Start(t)
	srv.MakeBucket("crawl")
	for _, v := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
		t.Setenv(v, srv.Getenv(v))
	}
	bin := buildBinary(t)
	home, client := t.TempDir(), t.TempDir()
	store := []string{"--store", "s3://crawl/hivecrawl"}
	cmd := startManager(t, bin, home, store...)
	run(t, bin, "seed", "add", "--manager", "--home", home, "http://a.example/")
	dirs, _ := paths.Resolve(home)
	warcDir := storage.WARCDir(managerDir(dirs))
	uploadFirstTask(t, bin, filepath.Join(managerDir(dirs), manager.ProfileFile), client, "")

	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(warcDir, "hivecrawl-*.warc.gz"))
	if len(left) != 1 {
		t.Fatalf("%d WARC files in the data directory after the kill, want the open one", len(left))
	}
	name := filepath.Base(left[0])
	object := filepath.Join(srv.Root, "crawl", "hivecrawl", "warc", name)
	if _, err := os.Stat(object); err == nil {
		t.Fatal("the open file was uploaded before it was closed")
	}

	startManager(t, bin, home, store...)
	waitUntil(t, func() bool {
		_, errW := os.Stat(object)
		_, errL := os.Stat(left[0])
		return errW == nil && os.IsNotExist(errL)
	})
	cdxj := filepath.Join(srv.Root, "crawl", "hivecrawl", "cdxj", name[:len(name)-len(".warc.gz")]+".cdxj")
	if b, err := os.ReadFile(cdxj); err != nil || len(b) == 0 {
		t.Fatalf("CDXJ object %s: %q, %v", cdxj, b, err)
	}
	if st := managerStatus(t, home); st.Stored.Uploads != 1 || st.Stored.Records != 1 {
		t.Fatalf("after restart: %+v", st.Stored)
	}
}
