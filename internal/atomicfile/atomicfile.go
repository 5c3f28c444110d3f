// Package atomicfile writes files so that a crash leaves either the old or
// the new content, never a mix: through a temporary file in the same
// directory and a rename over the target.
//
// WriteFile syncs the temporary file before the rename and the directory
// after it (SyncDir), so that a power loss cannot undo the write where the
// platform allows. Replace skips both syncs, for a file rewritten many
// times a second: a killed process still leaves the old or the new
// content, but a power loss may leave the file empty or short.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path with the given permissions, creating the
// directory (0700) when missing. The file and the directory are synced
// before it returns.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	return write(path, data, mode, true)
}

// Replace is WriteFile without the syncs: the rename is atomic but not
// durable, and nothing waits for the disk.
func Replace(path string, data []byte, mode os.FileMode) error {
	return write(path, data, mode, false)
}

func write(path string, data []byte, mode os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !sync {
		return nil
	}
	return SyncDir(dir)
}
