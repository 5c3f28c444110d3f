package governor

import (
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
)

// How many consecutive readings decide the busy pause: pause after
// BusyAfter readings above the threshold, resume after CalmAfter readings
// below threshold minus hysteresis.
const (
	BusyAfter = 3
	CalmAfter = 5
)

// MaxThrottle is the largest share of each second the CPU cap may hold task
// threads back, so crawling never stops entirely for the CPU cap alone.
const MaxThrottle = 0.95

// memoryResume is the share of the memory cap RSS must fall under before a
// memory pause ends.
const memoryResume = 0.9

// policy is the governor's decision state between readings. Its methods are
// pure: no clock, no I/O.
type policy struct {
	busy       bool    // paused for other programs' load
	busyCount  int     // consecutive readings above the threshold (or calm ones while busy)
	lastOther  float64 // other programs' CPU at the last reading
	memPaused  bool
	onBattery  bool      // the computer runs on battery, as last read (Options.Power)
	disk       DiskUsage // the last reading of Options.Disk, if diskRead
	diskRead   bool
	idle       bool    // nobody uses the computer, as last read (Options.Presence)
	throttle   float64 // share of each second task threads are held back
	lastOwnCPU float64
	lastRSS    int64
	// challenges and ended are when crawls ended challenged (a site's
	// firewall took the crawler for a bot) and when crawls ended at all,
	// within ChallengeWindow.
	challenges []time.Time
	ended      []time.Time
}

// The challenge pause: when, within ChallengeWindow, at least
// ChallengePauseAt crawls ended challenged and they were at least
// ChallengePauseShare of the crawls that ended, crawling pauses until
// enough of them are older than the window. Sites that challenge a bot
// often block its address next; the pause keeps the volunteer's address
// from being flagged.
const (
	ChallengeWindow     = time.Hour
	ChallengePauseAt    = 3
	ChallengePauseShare = 0.25
)

// taskEnded records a crawl that ended at now, challenged or not.
func (p *policy) taskEnded(now time.Time, challenged bool) {
	keep := func(ts []time.Time) []time.Time {
		for len(ts) > 0 && now.Sub(ts[0]) >= ChallengeWindow {
			ts = ts[1:]
		}
		return ts
	}
	p.ended = append(keep(p.ended), now)
	p.challenges = keep(p.challenges)
	if challenged {
		p.challenges = append(p.challenges, now)
	}
}

// challengeRate returns the crawls that ended challenged and all that
// ended within ChallengeWindow before now.
func (p *policy) challengeRate(now time.Time) (challenged, ended int) {
	in := func(ts []time.Time) int {
		n := 0
		for _, t := range ts {
			if now.Sub(t) < ChallengeWindow {
				n++
			}
		}
		return n
	}
	return in(p.challenges), in(p.ended)
}

// observe updates the state with one reading under cfg.
func (p *policy) observe(cfg config.Config, r Reading) {
	p.lastOther = r.OtherCPU()
	p.lastOwnCPU = r.ProcessCPU
	p.lastRSS = r.RSS

	threshold := float64(cfg.BusyThreshold)
	switch {
	case threshold <= 0:
		p.busy, p.busyCount = false, 0
	case !p.busy && p.lastOther > threshold:
		p.busyCount++
		if p.busyCount >= BusyAfter {
			p.busy, p.busyCount = true, 0
		}
	case !p.busy:
		p.busyCount = 0
	case p.lastOther < threshold-float64(cfg.BusyHysteresis):
		p.busyCount++
		if p.busyCount >= CalmAfter {
			p.busy, p.busyCount = false, 0
		}
	default:
		p.busyCount = 0
	}

	limit := int64(cfg.Memory)
	switch {
	case limit <= 0:
		p.memPaused = false
	case r.RSS > limit:
		p.memPaused = true
	case float64(r.RSS) < float64(limit)*memoryResume:
		p.memPaused = false
	}

	// Integral control of the held-back share: raise it while over the cap,
	// lower it while comfortably under.
	cpuCap := float64(cfg.CPU)
	if cpuCap <= 0 {
		p.throttle = 0
		return
	}
	errShare := (r.ProcessCPU - cpuCap) / cpuCap
	switch {
	case errShare > 0:
		p.throttle += 0.5 * min(errShare, 1)
	case errShare < -0.2:
		p.throttle += 0.25 * max(errShare, -1)
	}
	p.throttle = min(max(p.throttle, 0), MaxThrottle)
}

// Usage counts bytes transferred (down plus up) in the current day and
// quota month.
type Usage struct {
	Day        string `json:"day"`         // local date "2006-01-02"
	DayBytes   int64  `json:"day_bytes"`   // bytes on Day
	Month      string `json:"month"`       // first day of the quota month
	MonthBytes int64  `json:"month_bytes"` // bytes since Month
	TotalBytes int64  `json:"total_bytes"` // bytes ever
}

// roll starts new periods when now has left the recorded ones.
func (u *Usage) roll(now time.Time, resetDay int) {
	if d := now.Format(time.DateOnly); u.Day != d {
		u.Day, u.DayBytes = d, 0
	}
	if m := monthStart(now, resetDay).Format(time.DateOnly); u.Month != m {
		u.Month, u.MonthBytes = m, 0
	}
}

// add counts n bytes.
func (u *Usage) add(n int64) {
	u.DayBytes += n
	u.MonthBytes += n
	u.TotalBytes += n
}

// monthStart is the start of the quota month holding now: the latest
// resetDay on or before now's date.
func monthStart(now time.Time, resetDay int) time.Time {
	resetDay = min(max(resetDay, 1), 28)
	y, m, d := now.Date()
	if d < resetDay {
		m--
	}
	return time.Date(y, m, resetDay, 0, 0, 0, 0, now.Location())
}

// Why crawling is paused, in a word (Status.Pauses): the reasons' texts
// without their figures.
const (
	PauseHeld         = "held"
	PausePaused       = "paused"
	PauseSnoozed      = "snoozed"
	PauseSchedule     = "schedule"
	PauseDailyQuota   = "daily_quota"
	PauseMonthlyQuota = "monthly_quota"
	PauseBusy         = "busy"
	PauseMemory       = "memory"
	PauseChallenged   = "challenged"
	PauseBattery      = "battery"
	PauseDisk         = "disk"
)

// PauseKinds are every Pause kind, in the order reasons are given.
var PauseKinds = []string{PauseHeld, PausePaused, PauseSnoozed, PauseSchedule, PauseBattery, PauseDailyQuota, PauseMonthlyQuota, PauseDisk, PauseBusy, PauseMemory, PauseChallenged}

// reasons lists why crawling is paused under cfg at now, in the order a
// contributor most needs to know, each with its kind; empty means it may
// run.
func (p *policy) reasons(cfg config.Config, now time.Time, u Usage) (texts, kinds []string) {
	add := func(kind, text string) {
		kinds, texts = append(kinds, kind), append(texts, text)
	}
	if cfg.Held != "" {
		add(PauseHeld, "Paused: "+cfg.Held)
	}
	if cfg.Paused {
		add(PausePaused, "Paused by you")
	}
	if now.Before(cfg.SnoozeUntil) {
		add(PauseSnoozed, "Snoozed until "+formatUntil(now, cfg.SnoozeUntil))
	}
	if _, ok := cfg.Schedule.Active(now); !ok {
		add(PauseSchedule, "Paused: outside the crawl schedule until "+formatUntil(now, cfg.Schedule.NextStart(now)))
	}
	if cfg.PauseOnBattery && p.onBattery {
		add(PauseBattery, "Paused: the computer runs on battery; crawling resumes on mains power")
	}
	if cfg.DailyQuota > 0 && u.DayBytes >= int64(cfg.DailyQuota) {
		add(PauseDailyQuota, fmt.Sprintf("Paused: daily transfer quota of %v reached", cfg.DailyQuota))
	}
	if cfg.MonthlyQuota > 0 && u.MonthBytes >= int64(cfg.MonthlyQuota) {
		next := monthStart(now, cfg.QuotaResetDay).AddDate(0, 1, 0)
		add(PauseMonthlyQuota, fmt.Sprintf("Paused: monthly transfer quota of %v reached (resets %s)", cfg.MonthlyQuota, next.Format("2 Jan")))
	}
	if full, _ := p.diskLimits(cfg, false); full != "" {
		add(PauseDisk, full)
	}
	if p.busy {
		add(PauseBusy, fmt.Sprintf("Paused: other programs are using %.0f %% CPU", p.lastOther))
	}
	if p.memPaused {
		add(PauseMemory, fmt.Sprintf("Paused: Hivecrawl is using %v of memory, over its cap of %v", config.Bytes(p.lastRSS), cfg.Memory))
	}
	if n, of := p.challengeRate(now); n >= ChallengePauseAt && float64(n) >= ChallengePauseShare*float64(of) {
		// Resumes when the oldest challenge that keeps the count at the
		// threshold leaves the window.
		until := p.challenges[len(p.challenges)-ChallengePauseAt].Add(ChallengeWindow)
		add(PauseChallenged, fmt.Sprintf("Paused: %d of the last %d sites crawled challenged this computer as a bot; crawling resumes at %s so that your address is not flagged", n, of, formatUntil(now, until)))
	}
	return texts, kinds
}

// formatUntil writes t as "14:05", or "Mon 14:05" when it is not today.
func formatUntil(now, t time.Time) string {
	t = t.In(now.Location())
	if t.Format(time.DateOnly) == now.Format(time.DateOnly) {
		return t.Format("15:04")
	}
	return t.Format("Mon 15:04")
}

// offFor returns how long a task thread arriving at now must wait under a
// duty cycle that holds threads back for the first share of every period.
func offFor(now time.Time, share float64, period time.Duration) time.Duration {
	if share <= 0 || period <= 0 {
		return 0
	}
	phase := time.Duration(now.UnixNano() % int64(period))
	off := time.Duration(share * float64(period))
	if phase < off {
		return off - phase
	}
	return 0
}
