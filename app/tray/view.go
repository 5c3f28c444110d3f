package tray

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/assets"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// View is what the tray shows for one status.
type View struct {
	// Icon names an icon in package assets (assets.IconCrawling, …).
	Icon string
	// Title is the first menu line: what the client does and why.
	Title string
	// Tooltip is Title with the most useful detail after it.
	Tooltip string
	// Today is today's contribution ("Today: 120 pages · 3.5 credits").
	Today string
	// Held is true while the contributor's pause or snooze holds, so the
	// menu offers Resume instead of Pause.
	Held bool
	// Finishing is true from a Finish until the client paused: the menu's
	// Finish entry is off meanwhile.
	Finishing bool
	// Preset is the preset the limits equal (config.PresetQuiet, …), or
	// config.PresetCustom: the Preset submenu ticks it.
	Preset string
}

// Reasons that the contributor set and can lift with Resume (see the
// governor's policy).
const (
	reasonPaused  = "Paused by you"
	reasonSnoozed = "Snoozed until"
)

// ViewOf turns the status (or the error reading it) into what the tray
// shows.
func ViewOf(st localapi.Status, err error) View {
	if err != nil {
		if errors.Is(err, loopback.ErrNotRunning) {
			return View{Icon: assets.IconOffline, Title: "Hivecrawl is not running", Tooltip: "Hivecrawl is not running", Today: "Today: –"}
		}
		return View{Icon: assets.IconError, Title: "Hivecrawl is not answering", Tooltip: "Hivecrawl is not answering: " + err.Error(), Today: "Today: –"}
	}
	v := View{Today: today(st), Preset: st.Preset}
	for _, r := range st.Reasons {
		if r == reasonPaused || strings.HasPrefix(r, reasonSnoozed) {
			v.Held = true
		}
	}
	running := len(st.Tasks.Running)
	rest := st.Reasons // the reasons the title does not give
	switch st.State {
	case "paused":
		v.Icon = assets.IconPaused
		v.Title = "Paused"
		if len(rest) > 0 {
			v.Title, rest = rest[0], rest[1:]
		}
	case "throttled":
		v.Icon = assets.IconThrottled
		v.Title = "Throttled"
		if running > 0 {
			v.Title = crawling(running, st.Download)
		}
		if len(rest) > 0 {
			v.Title += " · " + strings.TrimPrefix(rest[0], "Throttled: ")
			rest = rest[1:]
		}
	default:
		switch {
		case st.Finishing:
			v.Icon, v.Title, v.Finishing = assets.IconCrawling, "Finishing "+sites(running)+", then pausing", true
			rest = rest[min(1, len(rest)):] // the title says it
		case running > 0:
			v.Icon, v.Title = assets.IconCrawling, crawling(running, st.Download)
		case st.Overlay != nil && st.Overlay.ManagerSilent:
			v.Icon, v.Title = assets.IconIdle, "Idle: the manager does not answer"
		default:
			v.Icon, v.Title = assets.IconIdle, "Idle: waiting for tasks"
		}
	}
	v.Tooltip = "Hivecrawl · " + v.Title
	if len(rest) > 0 {
		v.Tooltip += "\n" + strings.Join(rest, "\n")
	}
	if st.ConfigProblem != "" {
		v.Icon = assets.IconError
		v.Tooltip += "\nSettings file not used: " + st.ConfigProblem
	}
	return v
}

// sites says "1 site" or "2 sites".
func sites(n int) string {
	if n == 1 {
		return "1 site"
	}
	return strconv.Itoa(n) + " sites"
}

// crawling says "Crawling 2 sites · 180 KB/s of 256 KB/s".
func crawling(n int, down localapi.Rate) string {
	s := "Crawling " + sites(n)
	s += " · " + config.Bytes(down.Current).String() + "/s"
	if down.Cap > 0 {
		s += " of " + config.Bytes(down.Cap).String() + "/s"
	}
	return s
}

func today(st localapi.Status) string {
	pages := "pages"
	if st.Pages.Today == 1 {
		pages = "page"
	}
	s := fmt.Sprintf("Today: %s %s · %s credits in all", group(st.Pages.Today), pages, credits(st.Credits.Confirmed))
	if st.Credits.Pending > 0 {
		s += " (" + credits(st.Credits.Pending) + " pending)"
	}
	return s
}

// credits writes a credit figure with one decimal below 100.
func credits(v float64) string {
	if v >= 100 {
		return group(int64(v + 0.5))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// group writes n with thousands separators: 12,345.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
