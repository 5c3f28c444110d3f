package config

import (
	"time"
)

// Defaults for the fields where zero would not be the obvious choice.
const (
	DefaultCPU            Percent = 50
	DefaultBusyThreshold  Percent = 25
	DefaultBusyHysteresis Percent = 10
	DefaultThreads                = 3
	DefaultQueueLength            = 5
	DefaultQuotaResetDay          = 1
	// DefaultAPIPort is the dashboard's port: below the range Linux hands
	// out to outgoing connections (32768–60999), so none of those takes it.
	DefaultAPIPort = 7339
	// MaxThreads bounds Threads and Overload: a contributor's PC, not a
	// crawl farm.
	MaxThreads = 64
	// DefaultDiskMax is the most Hivecrawl keeps on disk (its queue,
	// spools, results, solo mode's search index, logs) unless set.
	DefaultDiskMax Bytes = 5e9
	// DefaultDiskMinFree is the free space Hivecrawl leaves on its volume
	// unless set: enough for the system to go on writing its own files.
	DefaultDiskMinFree Bytes = 256e6
)

// Config is everything the contributor can set. The zero value of a field
// means what its comment says; Default fills in the rest.
type Config struct {
	// Download and Upload cap the client's traffic in bytes per second,
	// shared by every crawl connection and upload. 0 = unlimited.
	Download Bytes `json:"download"`
	Upload   Bytes `json:"upload"`
	// CPU caps the client's own process, in percent of the whole machine
	// (all cores). 0 = no cap. Default 50 %.
	CPU Percent `json:"cpu"`
	// BusyThreshold pauses crawling while other programs keep the machine's
	// CPU above this share for a few seconds. 0 = never pause for that.
	// Default 25 % (as BOINC does).
	BusyThreshold Percent `json:"busy_threshold"`
	// BusyHysteresis: crawling resumes only when the other programs' load
	// falls this many points below BusyThreshold. Default 10.
	BusyHysteresis Percent `json:"busy_hysteresis"`
	// Memory caps the client's resident memory (RSS) in bytes; crawling
	// pauses above it. 0 = no cap.
	Memory Bytes `json:"memory"`
	// Connections caps open crawl connections (the overlay's resource
	// manager reads it too). 0 = no cap.
	Connections int `json:"connections"`
	// Threads is CL, the number of tasks crawled at once. Default 3.
	Threads int `json:"threads"`
	// QueueLength is the longest the task queue may grow. Default 5.
	QueueLength int `json:"queue_length"`
	// Overload is OT, the queued-plus-running task count above which new
	// tasks are forwarded to a neighbour (paper 002 §4.2). 0 = Threads +
	// QueueLength. It must not be below Threads.
	Overload int `json:"overload"`
	// DailyQuota and MonthlyQuota cap the bytes transferred (down plus up)
	// per local calendar day and per month. 0 = no quota.
	DailyQuota   Bytes `json:"daily_quota"`
	MonthlyQuota Bytes `json:"monthly_quota"`
	// QuotaResetDay is the day of the month (1–28) the monthly quota starts
	// again. Default 1.
	QuotaResetDay int `json:"quota_reset_day"`
	// DiskMax caps what Hivecrawl keeps on disk: everything in its data,
	// state and configuration directories. Near it no new task starts
	// (the running ones finish); at it crawling pauses. 0 = no cap.
	// Default 5 GB. (BOINC's disk_max_used_gb.)
	DiskMax Bytes `json:"disk_max"`
	// DiskMinFree is the free space Hivecrawl leaves on the volume of its
	// data directory, as DiskMax does with what it keeps. 0 = none kept
	// free. Default 256 MB. (BOINC's disk_min_free_gb.)
	DiskMinFree Bytes `json:"disk_min_free"`
	// Schedule limits crawling to weekly time windows. Empty = always.
	Schedule Schedule `json:"schedule"`
	// SnoozeUntil pauses crawling until this time. Zero = not snoozed.
	SnoozeUntil time.Time `json:"snooze_until,omitzero"`
	// Paused is the contributor's explicit pause; it survives restarts.
	Paused bool `json:"paused"`
	// PauseOnBattery pauses crawling while the computer runs on battery
	// (UPower on Linux). Default true.
	PauseOnBattery bool `json:"pause_on_battery"`
	// Idle are the limits while nobody uses the computer (logind's
	// IdleHint on Linux), in place of CPU, Download and Upload.
	Idle IdleLimits `json:"idle"`
	// Held, when set, pauses crawling for the reason it gives. It is never
	// saved: Open sets it when the file is damaged and no good copy of the
	// contributor's limits is left to run under.
	Held string `json:"-"`
	// Delay is the contributor's own minimum politeness wait between
	// requests to one host. It can only slow crawling down: a task waits
	// the longer of it and the operator's wait, and robots.txt Crawl-delay
	// can raise that again. (The User-Agent and the name robots.txt rules
	// are matched against are the operator's, not settings.) 0 = no
	// minimum of one's own: the operator's wait (the crawler's 1s for a
	// task that sets none).
	Delay Duration `json:"delay"`
	// Notifications says which desktop notifications are shown.
	Notifications Notifications `json:"notifications"`
	// StartAtLogin starts the client when the user logs in.
	StartAtLogin bool `json:"start_at_login"`
	// Nickname is shown to the operator beside this peer's credits.
	Nickname string `json:"nickname,omitempty"`
	// APIPort is the local API's and dashboard's port on 127.0.0.1, the
	// same at every start so the dashboard can be bookmarked. When it is
	// taken (another program, a second client), the client takes a free
	// port for that run and says so. 0 = a random free port at each start.
	// The address is written to api.json for the CLI and tray.
	APIPort int `json:"api_port"`
	// Metrics serves Prometheus metrics at /metrics on the local API
	// (docs/operator/metrics.md), for a volunteer who watches their machines with
	// Prometheus. Off by default: /metrics is then not found. It applies
	// at once.
	Metrics bool `json:"metrics"`
}

// IdleLimits replace the CPU and bandwidth caps while the computer is
// idle, when On: a volunteer may give more while away than while at work.
// 0 = no cap, as for the caps they replace.
type IdleLimits struct {
	On       bool    `json:"on"`
	CPU      Percent `json:"cpu"`
	Download Bytes   `json:"download"`
	Upload   Bytes   `json:"upload"`
}

// Notifications switches each kind of desktop notification.
type Notifications struct {
	FirstContribution bool `json:"first_contribution"`
	DailySummary      bool `json:"daily_summary"` // opt-in
	Milestones        bool `json:"milestones"`
	Problems          bool `json:"problems"`
}

// Default returns the configuration a new contributor starts with: no
// bandwidth cap, half the machine's CPU at most, pause when others are busy.
func Default() Config {
	return Config{
		CPU:            DefaultCPU,
		BusyThreshold:  DefaultBusyThreshold,
		BusyHysteresis: DefaultBusyHysteresis,
		Threads:        DefaultThreads,
		QueueLength:    DefaultQueueLength,
		QuotaResetDay:  DefaultQuotaResetDay,
		DiskMax:        DefaultDiskMax,
		DiskMinFree:    DefaultDiskMinFree,
		APIPort:        DefaultAPIPort,
		PauseOnBattery: true,
		Notifications: Notifications{
			FirstContribution: true,
			Milestones:        true,
			Problems:          true,
		},
	}
}

// OverloadThreshold returns OT with its default applied and raised to at
// least Threads (OT ≥ CL).
func (c Config) OverloadThreshold() int {
	if c.Overload == 0 {
		return c.Threads + c.QueueLength
	}
	return max(c.Overload, c.Threads)
}
