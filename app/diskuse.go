package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/shirou/gopsutil/v4/disk"

	"github.com/hivecrawl/hivecrawl/app/governor"
	"github.com/hivecrawl/hivecrawl/app/paths"
)

// dirUsage is the governor's Disk for a client: what it keeps is every
// file under its configuration, data and state directories (the task
// queue, spools, results, the ledger, solo mode's manager and search
// index, the event log), and the free space is that of the data
// directory's volume, as the volume grants it to this user.
type dirUsage struct{ dirs paths.Dirs }

var _ governor.Disk = dirUsage{}

// Usage walks the directories and reads the volume's free space. A file
// that goes while the walk passes (a spool removed after its upload) is
// not counted; any other error fails the reading.
func (d dirUsage) Usage(ctx context.Context) (governor.DiskUsage, error) {
	var kept int64
	seen := map[string]bool{}
	for _, dir := range []string{d.dirs.Config, d.dirs.Data, d.dirs.State} {
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if !e.Type().IsRegular() {
				return nil
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			kept += info.Size()
			return nil
		})
		if err != nil {
			return governor.DiskUsage{}, fmt.Errorf("measure %s: %w", dir, err)
		}
	}
	u, err := disk.UsageWithContext(ctx, d.dirs.Data)
	if err != nil {
		return governor.DiskUsage{}, fmt.Errorf("free space of %s: %w", d.dirs.Data, err)
	}
	return governor.DiskUsage{Kept: kept, Free: int64(min(u.Free, uint64(1)<<62))}, nil
}
