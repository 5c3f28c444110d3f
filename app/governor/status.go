package governor

import (
	"fmt"
	"slices"

	"github.com/hivecrawl/hivecrawl/app/config"
)

// atCap is the share of a bandwidth cap above which Status calls the client
// throttled by it.
const atCap = 0.9

// Paused reports whether crawling is paused and why.
func (g *Governor) Paused() (bool, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.reasons) > 0, slices.Clone(g.reasons)
}

// Status is a snapshot of the limits and the readings against them.
type Status struct {
	State   State    `json:"state"`
	Reasons []string `json:"reasons,omitempty"`
	// Pauses are the kinds of the reasons crawling is paused (PauseKinds);
	// empty unless State is Paused.
	Pauses []string `json:"pauses,omitempty"`
	// Throttle is the share of each period held back by the CPU cap.
	Throttle float64 `json:"throttle"`
	// Rates measured over the last interval, and the caps (0 = unlimited).
	DownRate int64 `json:"down_rate"`
	DownCap  int64 `json:"down_cap"`
	UpRate   int64 `json:"up_rate"`
	UpCap    int64 `json:"up_cap"`
	// CPU shares of the whole machine, in percent.
	OwnCPU        float64 `json:"own_cpu"`
	OtherCPU      float64 `json:"other_cpu"`
	CPUCap        float64 `json:"cpu_cap"`
	BusyThreshold float64 `json:"busy_threshold"`
	RSS           int64   `json:"rss"`
	MemoryCap     int64   `json:"memory_cap"`
	Conns         int     `json:"conns"`
	ConnsCap      int     `json:"conns_cap"`
	Usage         Usage   `json:"usage"`
	DailyQuota    int64   `json:"daily_quota"`
	MonthlyQuota  int64   `json:"monthly_quota"`
	// Challenges counts the crawls that sites' firewalls challenged, of
	// the TasksEnded crawls that ended, within the last ChallengeWindow.
	Challenges int `json:"challenges"`
	TasksEnded int `json:"tasks_ended"`
	// Disk is the last disk reading (zero before the first) and the
	// limits on it; Hold says why no new task starts while crawling goes
	// on (Holding), and is among Reasons then.
	Disk        DiskUsage `json:"disk"`
	DiskMax     int64     `json:"disk_max"`
	DiskMinFree int64     `json:"disk_min_free"`
	Hold        string    `json:"hold,omitempty"`
}

// Status returns the current snapshot.
func (g *Governor) Status() Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := Status{
		State:         Running,
		Reasons:       slices.Clone(g.reasons),
		Pauses:        slices.Clone(g.kinds),
		Throttle:      g.pol.throttle,
		DownRate:      g.downRate,
		DownCap:       g.down.Rate(),
		UpRate:        g.upRate,
		UpCap:         g.up.Rate(),
		OwnCPU:        g.pol.lastOwnCPU,
		OtherCPU:      g.pol.lastOther,
		CPUCap:        float64(g.effectiveLocked().CPU),
		BusyThreshold: float64(g.cfg.BusyThreshold),
		RSS:           g.pol.lastRSS,
		MemoryCap:     int64(g.cfg.Memory),
		Conns:         g.conns.Open(),
		ConnsCap:      g.conns.Cap(),
		Usage:         g.usage,
		DailyQuota:    int64(g.cfg.DailyQuota),
		MonthlyQuota:  int64(g.cfg.MonthlyQuota),
		Disk:          g.pol.disk,
		DiskMax:       int64(g.cfg.DiskMax),
		DiskMinFree:   int64(g.cfg.DiskMinFree),
		Hold:          g.hold,
	}
	s.Challenges, s.TasksEnded = g.pol.challengeRate(g.opts.Now())
	switch {
	case len(g.reasons) > 0:
		s.State = Paused
	case g.pol.throttle > 0:
		s.State = Throttled
		s.Reasons = []string{fmt.Sprintf("Throttled: Hivecrawl is held to %.0f %% CPU", float64(g.effectiveLocked().CPU))}
	}
	if s.State != Paused {
		// A bucket running at its cap is a limit at work too.
		for _, b := range []struct {
			name      string
			rate, cap int64
		}{{"download", s.DownRate, s.DownCap}, {"upload", s.UpRate, s.UpCap}} {
			if b.cap > 0 && float64(b.rate) >= atCap*float64(b.cap) {
				s.State = Throttled
				s.Reasons = append(s.Reasons, fmt.Sprintf("Throttled: %s at its cap of %v/s", b.name, config.Bytes(b.cap)))
			}
		}
		if g.hold != "" {
			s.Reasons = append(s.Reasons, g.hold)
		}
	}
	return s
}
