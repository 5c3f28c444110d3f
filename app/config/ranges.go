package config

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// The ranges of the settings, in one place: Validate checks them, and so
// every way a setting arrives (hivecrawl set, the Settings page through
// the local API, the configuration file) is held to the same ones.
// Bounds beyond what a contributor's machine could use are refused as
// mistakes (an extra zero, a unit left off), not clamped.
const (
	// MinRate is the smallest download or upload cap: below it a page
	// does not arrive within the crawler's timeouts.
	MinRate Bytes = 1000
	// MaxRate is the largest: 10 GB/s, beyond any home or office link.
	MaxRate Bytes = 10e9
	// MinMemory is the smallest memory cap crawling fits in.
	MinMemory Bytes = 32 << 20
	// MaxMemory is the largest memory cap, 1 TiB.
	MaxMemory Bytes = 1 << 40
	// MaxQuota bounds the daily and monthly transfer quotas, 1 PB, and
	// the disk settings.
	MaxQuota Bytes = 1e15
	// MinDiskMax is the smallest disk cap: a task queue, a spool and the
	// event log fit in it.
	MinDiskMax Bytes = 16 << 20
	// MaxConnections bounds the connection cap: more sockets than a
	// desktop's file descriptor limit allows is a mistake.
	MaxConnections = 10000
	// MaxQueueLength bounds the task queue.
	MaxQueueLength = 1000
	// MaxOverload bounds OT: every thread busy and the queue full.
	MaxOverload = MaxThreads + MaxQueueLength
	// MaxDelay bounds the contributor's own politeness wait.
	MaxDelay = time.Minute
	// MaxNickname bounds the nickname, in bytes.
	MaxNickname = 64
	// MinAPIPort is the lowest port the local API may ask for: the ones
	// below are privileged (binding them needs root) and belong to
	// system services such as ssh on 22.
	MinAPIPort = 1024
	// MaxAPIPort is the highest TCP port.
	MaxAPIPort = 65535
	// MaxWindows bounds the schedule's windows: one for each hour of the
	// week is 168, and no week needs more.
	MaxWindows = 168
)

// Validate reports the first setting that is out of range, in words a
// contributor can act on: the setting, its range and the value given.
// Every error wraps ErrInvalid.
func (c Config) Validate() error {
	bad := invalidf
	rate := func(name string, b Bytes) error {
		if b != 0 && (b < MinRate || b > MaxRate) {
			return bad("%s must be 0 (no cap) or between %v/s and %v/s, got %v/s", name, MinRate, MaxRate, b)
		}
		return nil
	}
	if err := rate("download", c.Download); err != nil {
		return err
	}
	if err := rate("upload", c.Upload); err != nil {
		return err
	}
	if err := rate("idle.download", c.Idle.Download); err != nil {
		return err
	}
	if err := rate("idle.upload", c.Idle.Upload); err != nil {
		return err
	}
	if c.Idle.CPU < 0 || c.Idle.CPU > 100 {
		return bad("idle.cpu must be between 0 and 100 %%, got %v", float64(c.Idle.CPU))
	}
	switch {
	case c.CPU < 0 || c.CPU > 100:
		return bad("cpu must be between 0 and 100 %%, got %v", float64(c.CPU))
	case c.BusyThreshold < 0 || c.BusyThreshold > 100:
		return bad("busy_threshold must be between 0 and 100 %%, got %v", float64(c.BusyThreshold))
	case c.BusyHysteresis < 0 || c.BusyHysteresis > 100:
		return bad("busy_hysteresis must be between 0 and 100 points, got %v", float64(c.BusyHysteresis))
	case c.Memory < 0:
		return bad("memory cap must not be negative (0 = no cap)")
	case c.Memory > 0 && c.Memory < MinMemory:
		return bad("memory cap %v is too small to crawl (at least 32 MiB, or 0 for no cap)", c.Memory)
	case c.Memory > MaxMemory:
		return bad("memory cap must be at most 1 TiB (or 0 for no cap), got %v", c.Memory)
	case c.Connections < 0 || c.Connections > MaxConnections:
		return bad("connections must be between 0 (no cap) and %d, got %d", MaxConnections, c.Connections)
	case c.Threads < 1 || c.Threads > MaxThreads:
		return bad("threads must be between 1 and %d, got %d", MaxThreads, c.Threads)
	case c.QueueLength < 0 || c.QueueLength > MaxQueueLength:
		return bad("queue_length must be between 0 and %d, got %d", MaxQueueLength, c.QueueLength)
	case c.Overload < 0 || c.Overload > MaxOverload:
		return bad("overload must be between 0 and %d, got %d", MaxOverload, c.Overload)
	case c.Overload != 0 && c.Overload < c.Threads:
		return bad("overload (%d) must be at least threads (%d), or 0 for threads + queue_length", c.Overload, c.Threads)
	case c.DailyQuota < 0 || c.DailyQuota > MaxQuota:
		return bad("daily_quota must be between 0 (no quota) and %v, got %v", MaxQuota, c.DailyQuota)
	case c.MonthlyQuota < 0 || c.MonthlyQuota > MaxQuota:
		return bad("monthly_quota must be between 0 (no quota) and %v, got %v", MaxQuota, c.MonthlyQuota)
	case c.DiskMax < 0 || c.DiskMax > MaxQuota:
		return bad("disk_max must be between 0 (no cap) and %v, got %v", MaxQuota, c.DiskMax)
	case c.DiskMax > 0 && c.DiskMax < MinDiskMax:
		return bad("disk_max %v is too small to keep a task queue and its spools (at least %v, or 0 for no cap)", c.DiskMax, MinDiskMax)
	case c.DiskMinFree < 0 || c.DiskMinFree > MaxQuota:
		return bad("disk_min_free must be between 0 and %v, got %v", MaxQuota, c.DiskMinFree)
	case c.QuotaResetDay < 1 || c.QuotaResetDay > 28:
		return bad("quota_reset_day must be between 1 and 28, got %d", c.QuotaResetDay)
	case c.Delay < 0 || time.Duration(c.Delay) > MaxDelay:
		return bad("delay must be between 0 and 1m, got %v", time.Duration(c.Delay))
	case len(c.Nickname) > MaxNickname:
		return bad("nickname is longer than %d bytes", MaxNickname)
	case !printable(c.Nickname):
		return bad("nickname must be printable text, without control characters")
	case c.APIPort > 0 && c.APIPort < MinAPIPort:
		return bad("api_port %d is a privileged port (below %d, kept for system services): use 0 for a free port at each start, or a port between %d and %d", c.APIPort, MinAPIPort, MinAPIPort, MaxAPIPort)
	case c.APIPort < 0 || c.APIPort > MaxAPIPort:
		return bad("api_port must be 0 (a free port at each start) or between %d and %d, got %d", MinAPIPort, MaxAPIPort, c.APIPort)
	}
	return c.Schedule.validate()
}

// printable reports whether s is UTF-8 text without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
