package storage

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFullDiskHeals fills a real file system under the WARC folder (a
// 2 MiB tmpfs; skipped where mounting is not permitted): uploads are
// refused without the folder's path while it is full, and stored again
// once space returns, with no restart.
func TestFullDiskHeals(t *testing.T) {
	var warc string
	r := newRigWith(t, func(o *Options) {
		warc = WARCDir(o.Dir)
		if err := os.MkdirAll(warc, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount("tmpfs", warc, "tmpfs", 0, "size=2m"); err != nil {
			t.Skipf("cannot mount a tmpfs here: %v", err)
		}
		t.Cleanup(func() { syscall.Unmount(warc, syscall.MNT_DETACH) })
	})
	up, _ := r.client(t)
	want, send := r.uploadRound(t, up, 1, 5)
	if err := send(); err != nil {
		t.Fatal(err)
	}

	filler := filepath.Join(warc, "filler")
	fill(t, filler)
	texts, send := r.uploadRound(t, up, 2, 40)
	err := send()
	if err == nil {
		t.Fatal("upload stored on a full disk")
	}
	if msg := err.Error(); strings.Contains(msg, warc) || !strings.Contains(msg, "no space left on device") {
		t.Fatalf("refusal %q: want the cause without the WARC folder", msg)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := send(); err != nil {
		t.Fatalf("upload once space returned: %v", err)
	}
	maps.Copy(want, texts)
	r.readsBack(t, want, "after space returned")
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	warcRecords(t, r.dir)
}

// fill writes path until its file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}
