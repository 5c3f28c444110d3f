package storage

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// crash stops r's storage module as a killed process leaves it: the open
// WARC file neither closed nor indexed, its bytes not yet synced lost,
// nothing more uploaded.
func (r *rig) crash(t *testing.T) {
	t.Helper()
	s := r.st
	s.stopShip()
	<-s.ship.done
	s.mu.Lock()
	if s.rot.f != nil {
		s.rot.f.Close()
		s.rot.idx.Close()
	}
	s.mu.Unlock()
	if err := s.idx.Close(); err != nil {
		t.Fatal(err)
	}
	s.closeOnce.Do(func() {})
}

// reopen starts the storage module again on r's directory and options.
func (r *rig) reopen(t *testing.T) {
	t.Helper()
	st, err := New(r.opts)
	if err != nil {
		t.Fatal(err)
	}
	r.st = st
	t.Cleanup(func() { st.Close() })
}

// cutShort appends the first bytes of a gzip member to the newest WARC
// file in dir, as a crash while writing a record leaves it, and returns
// the file's name and size before.
func cutShort(t *testing.T, dir string) (string, int64) {
	t.Helper()
	names, err := warcFiles(dir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no WARC file: %v", err)
	}
	name := names[len(names)-1]
	path := filepath.Join(dir, name)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write(bytes.Repeat([]byte("WARC/1.1\r\nWARC-Type: conversion\r\n"), 50))
	zw.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(member.Bytes()[:member.Len()/2]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return name, fi.Size()
}

// TestCrashLeftover stops the storage module without Close in the middle
// of a record: at the next start the file is cut back to its last whole
// record and indexed, and every stored page reads back.
func TestCrashLeftover(t *testing.T) {
	r := newRig(t)
	want := storeRounds(t, r, 2, 5)
	r.crash(t)
	dir := WARCDir(r.dir)
	if _, err := os.Stat(filepath.Join(dir, cdxjName(mustNewest(t, dir)))); err == nil {
		t.Fatal("the open file has its index before it was closed")
	}
	name, whole := cutShort(t, dir)
	r.reopen(t)
	r.readsBack(t, want, "after the crash")
	if err := r.st.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil || fi.Size() != whole {
		t.Fatalf("%s is %d bytes after the restart, want it cut back to %d (%v)", name, fi.Size(), whole, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, name))
	cdxj, err := os.ReadFile(filepath.Join(dir, cdxjName(name)))
	if err != nil {
		t.Fatalf("leftover not indexed: %v", err)
	}
	if got := checkCDXJ(t, name, data, cdxj, want); len(got) != len(want) {
		t.Fatalf("leftover's index lists %d pages, want %d", len(got), len(want))
	}
	warcRecords(t, r.dir) // every file reads strictly
}

// TestCrashEmptyLeftover: a file without a whole record is removed.
func TestCrashEmptyLeftover(t *testing.T) {
	r := newRig(t)
	dir := WARCDir(r.dir)
	name := "hivecrawl-20261122115959-00001-00000000.warc.gz"
	if err := os.WriteFile(filepath.Join(dir, name), []byte{0x1f, 0x8b, 8}, 0o644); err != nil {
		t.Fatal(err)
	}
	r.st.Close()
	r.reopen(t)
	r.st.Close()
	if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
		t.Fatalf("file without a whole record kept: %v", err)
	}
}

func mustNewest(t *testing.T, dir string) string {
	t.Helper()
	names, err := warcFiles(dir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no WARC file: %v", err)
	}
	return names[len(names)-1]
}
