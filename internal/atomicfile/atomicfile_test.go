package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{
		{"WriteFile", WriteFile},
		{"Replace", Replace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "sub", "key")
			for _, c := range []struct {
				content string
				mode    os.FileMode
			}{
				{"first", 0o600},
				{"second, longer", 0o644},
				{"third", 0o600},
			} {
				if err := tc.write(path, []byte(c.content), c.mode); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil || string(b) != c.content {
					t.Fatalf("read back %q, %v; want %q", b, err, c.content)
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != c.mode {
					t.Fatalf("mode %v, want %v", fi.Mode().Perm(), c.mode)
				}
			}
			left, _ := os.ReadDir(filepath.Dir(path))
			if len(left) != 1 {
				t.Fatalf("%d files in the directory, want only the target (no temporary files left)", len(left))
			}
			if err := tc.write(filepath.Join(path, "under-a-file"), nil, 0o600); err == nil {
				t.Fatal("writing below a regular file succeeded")
			}
			if err := os.Mkdir(filepath.Join(dir, "a-directory"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(filepath.Join(dir, "a-directory"), nil, 0o600); err == nil {
				t.Fatal("replacing a directory succeeded")
			}
			if left, _ := os.ReadDir(dir); len(left) != 2 {
				t.Fatalf("%d entries after a failed rename, want 2 (no temporary file left)", len(left))
			}
		})
	}
}

func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	if err := SyncDir(dir); err != nil {
		t.Fatalf("SyncDir of a directory: %v", err)
	}
	if runtime.GOOS != "windows" {
		if err := SyncDir(filepath.Join(dir, "missing")); err == nil {
			t.Fatal("SyncDir of a missing directory succeeded")
		}
	}
}
