package taskmgr

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hivecrawl/hivecrawl/crawler"
)

// spoolPath names the spool file of a task; task IDs may hold any bytes, so
// the name is a hash of the ID.
func spoolPath(dir, id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".spool")
}

// commitSpool syncs and closes a finished spool and makes its directory
// entry durable, so the task may be marked done.
func commitSpool(sp *crawler.Spool, path string) error {
	if err := sp.Close(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("sync spool directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync spool directory: %w", err)
	}
	return nil
}

// discardSpool closes and deletes an unfinished spool.
func discardSpool(sp *crawler.Spool, path string) {
	sp.Close()
	os.Remove(path)
}
