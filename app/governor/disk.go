package governor

import (
	"context"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
)

// Disk tells how much Hivecrawl keeps on disk and how much its volume has
// free. The client's is a walk of its directories and a statfs; tests
// pass their own.
type Disk interface {
	Usage(ctx context.Context) (DiskUsage, error)
}

// DiskUsage is one reading of Disk.
type DiskUsage struct {
	Kept int64 // bytes in Hivecrawl's files
	Free int64 // bytes the volume of its data has free for it
}

// diskEvery is how often Tick reads the disk: a walk of a few dozen
// files, which a task's spool outgrows by a few pages at most meanwhile.
const diskEvery = 2 * time.Second

// diskHeadroom is the share of a disk limit kept in hand: within it of a
// limit no new task starts, so that the running ones can finish and
// upload (which frees their spools) before the limit itself is met.
const diskHeadroom = 0.1

// diskRelease is how clear of a limit use must be before a hold on
// starts lets go: twice the headroom. What else on the volume frees and
// takes a little (a finished task's spool, an index merging its files)
// would otherwise start and hold tasks in turn at the edge, and each
// start stores a result's worth nearer the limit.
const diskRelease = 2 * diskHeadroom

// readDisk reads the disk when diskEvery has passed since the last
// reading, or at once when a task ended since (force): its result is on
// disk, and the next start must not rest on a reading from before it. A
// failed reading keeps the last one, logged when it first fails: the
// limits hold on what was last known.
func (g *Governor) readDisk(ctx context.Context, now time.Time, force bool) {
	if g.opts.Disk == nil {
		return
	}
	g.diskMu.Lock()
	defer g.diskMu.Unlock()
	if now.Before(g.nextDisk) && !force {
		return
	}
	g.nextDisk = now.Add(diskEvery)
	g.mu.Lock()
	g.diskStale = false
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, powerTimeout)
	defer cancel()
	u, err := g.opts.Disk.Usage(ctx)
	if err != nil {
		if !g.diskFailed {
			g.opts.Logger.Info("Cannot measure Hivecrawl's disk use; the disk limits hold on the last reading", "err", err)
		}
		g.diskFailed = true
		return
	}
	g.diskFailed = false
	g.mu.Lock()
	g.pol.disk, g.pol.diskRead = u, true
	g.mu.Unlock()
}

// diskLimits decides the disk limits under cfg on the last reading: full
// when what Hivecrawl keeps reached DiskMax or the free space fell to
// DiskMinFree (crawling pauses), near when either is within
// diskHeadroom of it (no new task starts), or within diskRelease while
// starts are held already. The texts say which, with the figures.
func (p *policy) diskLimits(cfg config.Config, held bool) (full, near string) {
	if !p.diskRead {
		return "", ""
	}
	room := diskHeadroom
	if held {
		room = diskRelease
	}
	kept, free := config.Bytes(p.disk.Kept), config.Bytes(p.disk.Free)
	if max := cfg.DiskMax; max > 0 {
		switch {
		case kept >= max:
			full = fmt.Sprintf("Paused: Hivecrawl keeps %v on disk, its cap (disk_max) is %v", kept, max)
		case float64(kept) >= (1-room)*float64(max):
			near = fmt.Sprintf("Disk: Hivecrawl keeps %v of its %v (disk_max), so no new task starts; the running ones finish", kept, max)
		}
	}
	if min := cfg.DiskMinFree; min > 0 && full == "" {
		switch {
		case free <= min:
			full = fmt.Sprintf("Paused: %v free on the disk, Hivecrawl leaves at least %v (disk_min_free)", free, min)
		case near == "" && float64(free) <= (1+room)*float64(min):
			near = fmt.Sprintf("Disk: %v free on the disk, near the %v Hivecrawl leaves (disk_min_free), so no new task starts; the running ones finish", free, min)
		}
	}
	if full != "" {
		near = full
	}
	return full, near
}

// Holding returns why no new task may start although crawling goes on
// ("" = tasks may start): Hivecrawl's disk use near its limits. While a
// disk limit is reached it is the pause's reason. When a task ended since
// the last reading, it reads the disk first, so that no start rests on a
// reading taken before the last result was stored: with a reading at
// most diskEvery old, a fast crawl stored that much past the limits, and
// one taken just before a task ended missed its result. A reading is a
// walk of the client's files, once per task that ended.
func (g *Governor) Holding() string {
	g.mu.Lock()
	stale := g.diskStale
	g.mu.Unlock()
	if stale {
		g.readDisk(context.Background(), g.opts.Now(), true)
		g.mu.Lock()
		g.decideLocked(g.opts.Now()) // the caller asks: no notice
		g.mu.Unlock()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hold
}
