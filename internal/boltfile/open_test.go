package boltfile

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// makeFile writes a bbolt file of a few dozen pages: buckets, a sub-bucket
// and enough keys for branch pages.
func makeFile(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("tasks"))
		if err != nil {
			return err
		}
		sub, err := b.CreateBucket([]byte("sub"))
		if err != nil {
			return err
		}
		for i := range 400 {
			v := bytes.Repeat([]byte{byte(i)}, 200)
			if err := b.Put(fmt.Appendf(nil, "key-%04d", i), v); err != nil {
				return err
			}
			if err := sub.Put(fmt.Appendf(nil, "sub-%04d", i), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// damages are the ways a file gets damaged. Tests run as root, so a
// directory in place of the file stands for one that cannot be read.
var damages = []struct {
	name   string
	damage func(t *testing.T, path string)
}{
	{"truncated to half", func(t *testing.T, path string) {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, info.Size()/2); err != nil {
			t.Fatal(err)
		}
	}},
	{"truncated to an odd size", func(t *testing.T, path string) {
		if err := os.Truncate(path, 5000); err != nil {
			t.Fatal(err)
		}
	}},
	{"garbage in the middle", func(t *testing.T, path string) {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		info, _ := f.Stat()
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 8192), info.Size()/2); err != nil {
			t.Fatal(err)
		}
	}},
	{"garbage at the start", func(t *testing.T, path string) {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(bytes.Repeat([]byte("garbage!"), 2048), 0); err != nil {
			t.Fatal(err)
		}
	}},
	{"zero length", func(t *testing.T, path string) {
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
	}},
	{"directory in its place", func(t *testing.T, path string) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
	}},
	{"not a database", func(t *testing.T, path string) {
		if err := os.WriteFile(path, []byte(strings.Repeat("hello ", 3000)), 0o600); err != nil {
			t.Fatal(err)
		}
	}},
}

func TestOpenRefusesDamage(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			makeFile(t, path)
			d.damage(t, path)
			db, err := Open(path, &bolt.Options{Timeout: time.Second}, Policy{Name: "ledger", Advice: "restore it from a backup"})
			if err == nil {
				db.Close()
				t.Fatal("a damaged file opened")
			}
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line wrapping ErrDamaged and naming the file", err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the refused file is gone: %v", err)
			}
			t.Log(err)
		})
	}
}

func TestOpenMovesAside(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "queue.db")
			makeFile(t, path)
			d.damage(t, path)
			var logged bytes.Buffer
			now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			db, err := Open(path, nil, Policy{Name: "task queue", OnDamage: MoveAside,
				Logger: slog.New(slog.NewTextHandler(&logged, nil)), Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.View(func(tx *bolt.Tx) error {
				if tx.Bucket([]byte("tasks")) != nil {
					return errors.New("the new file has the old bucket")
				}
				return nil
			}); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(path + ".broken-20260102T030405Z"); err != nil {
				t.Errorf("damaged file not moved aside: %v", err)
			}
			if n := strings.Count(logged.String(), "\n"); n != 1 || !strings.Contains(logged.String(), path) {
				t.Errorf("log %q: want one line naming the file", logged.String())
			}
		})
	}
}

func TestOpenGoodFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	makeFile(t, path)
	for range 2 {
		db, err := Open(path, nil, Policy{Name: "ledger"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("tasks")).Delete([]byte("key-0001")) }); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	db, err := Open(filepath.Join(t.TempDir(), "new.db"), nil, Policy{Name: "ledger"})
	if err != nil {
		t.Fatalf("new file: %v", err)
	}
	db.Close()
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := Open(path, nil, Policy{Name: "ledger"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = Open(path, &bolt.Options{Timeout: 50 * time.Millisecond}, Policy{Name: "ledger", OnDamage: MoveAside})
	if err == nil || errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "another") {
		t.Fatalf("second open: %v, want a lock error", err)
	}
}

// Check finds each damage Open refuses, and changes nothing.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sound.db")
	makeFile(t, path)
	if err := Check(path); err != nil {
		t.Fatalf("Check of a sound file: %v", err)
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			makeFile(t, path)
			d.damage(t, path)
			before, _ := os.ReadFile(path)
			if err := Check(path); !errors.Is(err, ErrDamaged) {
				t.Errorf("Check = %v, want ErrDamaged", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("Check changed the file")
			}
		})
	}
}
