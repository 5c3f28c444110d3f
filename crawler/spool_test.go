package crawler

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/task"
)

func writeSpool(t *testing.T, path string, n int) {
	t.Helper()
	s, err := OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := &task.Page{URL: "http://h/" + string(rune('a'+i)), Status: 200, Text: bytes.Repeat([]byte{byte(i)}, 100),
			FetchedAt: time.Unix(int64(i), 0).UTC()}
		if err := s.Page(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSpoolRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	writeSpool(t, path, 5)
	var got []string
	if err := ReadSpool(path, func(p *task.Page) error { got = append(got, p.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0] != "http://h/a" || got[4] != "http://h/e" {
		t.Fatalf("read back %v", got)
	}
}

func TestSpoolDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	writeSpool(t, path, 3)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		damage  func([]byte) []byte
		want    error
		records int
	}{
		{"truncated last record", func(b []byte) []byte { return b[:len(b)-10] }, ErrSpoolTruncated, 2},
		{"truncated in header", func(b []byte) []byte { return b[:len(spoolMagic)+3] }, ErrSpoolTruncated, 0},
		{"flipped payload byte", func(b []byte) []byte { b[len(b)-5] ^= 0xff; return b }, ErrSpoolCorrupt, 2},
		{"not a spool", func(b []byte) []byte { return []byte("hello world, not a spool") }, ErrSpoolCorrupt, 0},
		{"empty", func(b []byte) []byte { return nil }, ErrSpoolTruncated, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "d")
			if err := os.WriteFile(p, tc.damage(bytes.Clone(whole)), 0o600); err != nil {
				t.Fatal(err)
			}
			n := 0
			err := ReadSpool(p, func(*task.Page) error { n++; return nil })
			if !errors.Is(err, tc.want) {
				t.Fatalf("ReadSpool = %v, want %v", err, tc.want)
			}
			if n != tc.records {
				t.Fatalf("delivered %d records before the damage, want %d", n, tc.records)
			}
		})
	}
}

func FuzzReadSpool(f *testing.F) {
	path := filepath.Join(f.TempDir(), "s")
	s, err := OpenSpool(path)
	if err != nil {
		f.Fatal(err)
	}
	_ = s.Page(&task.Page{URL: "http://h/", Status: 200, Text: []byte("x")})
	_ = s.Close()
	good, _ := os.ReadFile(path)
	f.Add(good)
	f.Add([]byte(spoolMagic))
	f.Add([]byte(spoolMagic + "\x00\x00\x00\x02\x00\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := readSpool(bytes.NewReader(b), func(p *task.Page) error {
			if p == nil {
				t.Fatal("nil page delivered")
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrSpoolTruncated) && !errors.Is(err, ErrSpoolCorrupt) {
			t.Fatalf("unclassified error %v", err)
		}
	})
}

// Every page and mark is in the file as soon as Page or Mark returns,
// without Close, so a killed process leaves them for SpoolState to read:
// a mark as the last record means it died processing a page. A partial
// last record is ignored, and readers skip marks.
func TestSpoolStateAfterKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.spool")
	sp, err := OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	state := func(wantPages int, wantDying bool) {
		t.Helper()
		pages, dying, written, err := SpoolState(path)
		if err != nil || pages != wantPages || dying != wantDying || written.IsZero() {
			t.Fatalf("SpoolState = %d, %v, %v; want %d pages, dying %v", pages, dying, err, wantPages, wantDying)
		}
	}
	for i := range 3 {
		if err := sp.Mark(); err != nil {
			t.Fatal(err)
		}
		if err := sp.Page(&task.Page{URL: fmt.Sprintf("http://example.com/%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	state(3, false)
	if err := sp.Mark(); err != nil { // processing a page that is never written
		t.Fatal(err)
	}
	state(3, true)
	if sp.Records() != 7 || sp.Count() != 3 {
		t.Fatalf("spool counts %d records and %d pages, want 7 and 3", sp.Records(), sp.Count())
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte{0, 0, 1, 0, 9}) // a record cut short
	f.Close()
	state(3, true)
	pages := 0
	err = ReadSpool(path, func(*task.Page) error { pages++; return nil })
	if pages != 3 || !errors.Is(err, ErrSpoolTruncated) {
		t.Fatalf("ReadSpool gave %d pages and %v; want the 3 pages, marks skipped, then the truncation", pages, err)
	}
	if pages, dying, _, err := SpoolState(path + ".missing"); err != nil || pages != 0 || dying {
		t.Fatalf("SpoolState of a missing file = %d, %v, %v", pages, dying, err)
	}
	sp.Close()
}
