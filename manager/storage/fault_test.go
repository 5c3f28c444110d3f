package storage

import (
	"context"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hivecrawl/hivecrawl/proto/upload"
)

// failingWriter fails every write with ENOSPC while full is set, as a
// full disk does.
type failingWriter struct {
	w    io.Writer
	full *atomic.Bool
}

func (f failingWriter) Write(p []byte) (int, error) {
	if f.full.Load() {
		return 0, &fs.PathError{Op: "write", Path: "/srv/hivecrawl/warc/x.warc.gz", Err: syscall.ENOSPC}
	}
	return f.w.Write(p)
}

// uploadRound issues round and uploads pages as its result through a
// real uploader; it returns the upload's error.
func (r *rig) uploadRound(t *testing.T, up *upload.Uploader, round int, n int) (map[string]string, func() error) {
	t.Helper()
	tk, env := r.issue(t, round)
	pages, texts := textPages(round, n)
	d := delivery(t, tk.ID, env, pages, nil)
	return texts, func() error {
		_, err := up.Upload(context.Background(), d)
		return err
	}
}

// TestWriteFaultHeals: a write error refuses the upload under way
// without a local path, and the next upload after the fault clears is
// stored, with no restart. The file the fault ended is cut back to its
// last stored record and indexed.
func TestWriteFaultHeals(t *testing.T) {
	r := newRig(t)
	var full atomic.Bool
	r.st.mu.Lock()
	r.st.rot.wrap = func(w io.Writer) io.Writer { return failingWriter{w: w, full: &full} }
	r.st.mu.Unlock()
	up, _ := r.client(t)

	want, send := r.uploadRound(t, up, 1, 5)
	if err := send(); err != nil {
		t.Fatal(err)
	}
	dir := WARCDir(r.dir)
	first := mustNewest(t, dir)

	full.Store(true)
	texts, send := r.uploadRound(t, up, 2, 5)
	for range 2 { // the fault sticks to nothing: refused twice alike
		err := send()
		if err == nil {
			t.Fatal("upload stored while every write fails")
		}
		if msg := err.Error(); strings.Contains(msg, "/srv/") || strings.Contains(msg, r.dir) || !strings.Contains(msg, "no space left on device") {
			t.Fatalf("refusal %q: want the cause without a local path", msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, cdxjName(first))); err != nil {
		t.Fatalf("file ended by the fault not indexed: %v", err)
	}

	full.Store(false)
	if err := send(); err != nil {
		t.Fatalf("upload after the fault cleared: %v", err)
	}
	maps.Copy(want, texts)
	r.readsBack(t, want, "after the fault")
	data, _ := os.ReadFile(filepath.Join(dir, first))
	cdxj, _ := os.ReadFile(filepath.Join(dir, cdxjName(first)))
	if got := checkCDXJ(t, first, data, cdxj, want); len(got) != 5 {
		t.Fatalf("the faulted file's index lists %d pages, want round 1's 5", len(got))
	}
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	warcRecords(t, r.dir) // every file reads strictly
}
