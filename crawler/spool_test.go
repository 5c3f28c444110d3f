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

// Every page is in the file as soon as Page returns, without Close, so a
// killed process leaves them for SpoolPages to count; a partial last record
// is not counted.
func TestSpoolPagesAfterKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.spool")
	sp, err := OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := sp.Page(&task.Page{URL: fmt.Sprintf("http://example.com/%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := SpoolPages(path); err != nil || n != 3 {
		t.Fatalf("SpoolPages = %d, %v before Close; want 3", n, err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte{0, 0, 1, 0, 9}) // a record cut short
	f.Close()
	if n, err := SpoolPages(path); err != nil || n != 3 {
		t.Fatalf("SpoolPages = %d, %v with a partial record; want 3", n, err)
	}
	if n, err := SpoolPages(path + ".missing"); err != nil || n != 0 {
		t.Fatalf("SpoolPages of a missing file = %d, %v", n, err)
	}
	sp.Close()
}
