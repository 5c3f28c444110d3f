//go:build unix

package atomicfile

import (
	"fmt"
	"os"
)

// SyncDir makes dir's entries durable (a file renamed into it): until the
// directory is synced, a power loss may undo the rename.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
