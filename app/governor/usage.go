package governor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
)

// usageSaveEvery is how often the transfer counters are brought up to date
// and written while bytes move, and so how much transfer a crash can leave
// uncounted against the quotas. These writes replace the file without
// syncing it, which a killed process cannot undo; usageSyncEvery bounds
// what a power cut can.
const (
	usageSaveEvery = 50 * time.Millisecond
	usageSyncEvery = 30 * time.Second
)

// countLocked adds the bytes metered since the last tick to the usage,
// measures the rates and reports whether any bytes moved; g.mu must be
// held.
func (g *Governor) countLocked(now time.Time) bool {
	down, up := g.down.Total(), g.up.Total()
	delta := g.accountLocked(now)
	if dt := now.Sub(g.last).Seconds(); dt > 0 {
		g.downRate = int64(float64(down-g.prev[0]) / dt)
		g.upRate = int64(float64(up-g.prev[1]) / dt)
	}
	g.prev = [2]int64{down, up}
	g.last = now
	return delta > 0
}

// accountLocked adds the bytes metered since it last ran to the usage and
// returns them; g.mu must be held.
func (g *Governor) accountLocked(now time.Time) int64 {
	total := g.down.Total() + g.up.Total()
	delta := total - g.counted
	g.usage.roll(now, g.cfg.QuotaResetDay)
	if delta > 0 {
		g.usage.add(delta)
		g.dirty = true
	}
	g.counted = total
	return delta
}

// persistUsage brings the counters up to the bytes metered so far and
// writes them if they changed, reporting whether bytes moved; Serve calls
// it every usageSaveEvery while they do.
func (g *Governor) persistUsage() (moved bool) {
	g.mu.Lock()
	moved = g.accountLocked(g.opts.Now()) > 0
	g.mu.Unlock()
	g.saveUsage(false)
	return moved
}

// saveUsage writes the counters when they changed since the last write:
// synced when final or when the last synced write is usageSyncEvery old,
// else only replaced (safe from a killed process, not from a power cut).
func (g *Governor) saveUsage(final bool) {
	if g.opts.UsageFile == "" {
		return
	}
	g.mu.Lock()
	now := g.opts.Now()
	if !g.dirty {
		g.mu.Unlock()
		return
	}
	sync := final || now.Sub(g.synced) >= usageSyncEvery
	u := g.usage
	g.dirty = false
	if sync {
		g.synced = now
	}
	g.mu.Unlock()
	data, _ := json.Marshal(u)
	write := atomicfile.Replace
	if sync {
		write = atomicfile.WriteFile
	}
	if err := write(g.opts.UsageFile, data, 0o600); err != nil {
		g.opts.Logger.Warn("Cannot save transfer counters", "err", err)
	}
}

func loadUsage(path string) (Usage, error) {
	var u Usage
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &u); err != nil {
		return Usage{}, fmt.Errorf("decode %s: %w", path, err)
	}
	if u.DayBytes < 0 || u.MonthBytes < 0 || u.TotalBytes < 0 {
		return Usage{}, fmt.Errorf("decode %s: negative counters", path)
	}
	return u, nil
}
