package tray

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/assets"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func TestViewOf(t *testing.T) {
	two := []localapi.RunningTask{{Channel: "a.example"}, {Channel: "b.example"}}
	cases := []struct {
		name        string
		st          localapi.Status
		err         error
		icon, title string
		held        bool
		tooltipHas  string
	}{
		{"not running", localapi.Status{}, loopback.ErrNotRunning, assets.IconOffline, "Hivecrawl is not running", false, "not running"},
		{"not answering", localapi.Status{}, fmt.Errorf("reach: %w", errors.New("timeout")), assets.IconError, "Hivecrawl is not answering", false, "timeout"},
		{"idle", localapi.Status{State: "running"}, nil, assets.IconIdle, "Idle: waiting for tasks", false, "Idle"},
		{"crawling", localapi.Status{State: "running", Tasks: localapi.Tasks{Running: two}, Download: localapi.Rate{Current: 180_000, Cap: 256_000}},
			nil, assets.IconCrawling, "Crawling 2 sites · 180 KB/s of 256 KB/s", false, "Crawling 2 sites"},
		{"crawling one, no cap", localapi.Status{State: "running", Tasks: localapi.Tasks{Running: two[:1]}, Download: localapi.Rate{Current: 5_000}},
			nil, assets.IconCrawling, "Crawling 1 site · 5.00 KB/s", false, ""},
		{"paused by you", localapi.Status{State: "paused", Reasons: []string{"Paused by you", "Paused: daily transfer quota of 1 GB reached"}},
			nil, assets.IconPaused, "Paused by you", true, "daily transfer quota"},
		{"snoozed", localapi.Status{State: "paused", Reasons: []string{"Snoozed until 14:00"}}, nil, assets.IconPaused, "Snoozed until 14:00", true, ""},
		{"paused by load", localapi.Status{State: "paused", Reasons: []string{"Paused: other programs are using 63 % CPU"}},
			nil, assets.IconPaused, "Paused: other programs are using 63 % CPU", false, ""},
		{"throttled", localapi.Status{State: "throttled", Tasks: localapi.Tasks{Running: two}, Download: localapi.Rate{Current: 250_000, Cap: 256_000},
			Reasons: []string{"Throttled: download at its cap of 256 KB/s"}},
			nil, assets.IconThrottled, "Crawling 2 sites · 250 KB/s of 256 KB/s · download at its cap of 256 KB/s", false, ""},
		{"manager silent", localapi.Status{State: "running", Overlay: &localapi.Overlay{ManagerSilent: true},
			Reasons: []string{"The manager does not answer (since 14:02): new tasks wait and results are kept until it does"}},
			nil, assets.IconIdle, "Idle: the manager does not answer", false, "since 14:02"},
		{"crawling, manager silent", localapi.Status{State: "running", Tasks: localapi.Tasks{Running: two[:1]}, Overlay: &localapi.Overlay{ManagerSilent: true},
			Reasons: []string{"The manager does not answer (since 14:02): new tasks wait and results are kept until it does"}},
			nil, assets.IconCrawling, "Crawling 1 site · 0 B/s", false, "since 14:02"},
		{"finishing", localapi.Status{State: "running", Finishing: true, Tasks: localapi.Tasks{Running: two},
			Reasons: []string{"Finishing: no new task starts; Hivecrawl pauses once the 2 running end", "The manager does not answer (since 14:02)"}},
			nil, assets.IconCrawling, "Finishing 2 sites, then pausing", false, "since 14:02"},
		{"broken settings file", localapi.Status{State: "running", ConfigProblem: "line 3: bad"}, nil, assets.IconError, "Idle: waiting for tasks", false, "line 3: bad"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ViewOf(c.st, c.err)
			if v.Icon != c.icon || v.Title != c.title || v.Held != c.held {
				t.Errorf("got icon %q title %q held %v, want %q %q %v", v.Icon, v.Title, v.Held, c.icon, c.title, c.held)
			}
			if !strings.Contains(v.Tooltip, c.tooltipHas) {
				t.Errorf("tooltip %q lacks %q", v.Tooltip, c.tooltipHas)
			}
			if _, err := assets.IconPNG(v.Icon); err != nil {
				t.Errorf("icon %q missing: %v", v.Icon, err)
			}
		})
	}
}

func TestToday(t *testing.T) {
	cases := []struct {
		name string
		st   localapi.Status
		want string
	}{
		{"nothing yet", localapi.Status{}, "Today: 0 pages · 0.0 credits in all"},
		{"one page", localapi.Status{Pages: localapi.Pages{Today: 1}}, "Today: 1 page · 0.0 credits in all"},
		{"thousands", localapi.Status{Pages: localapi.Pages{Today: 12345}, Credits: localapi.Credits{Confirmed: 1234.6, Pending: 3.25}},
			"Today: 12,345 pages · 1,235 credits in all (3.2 pending)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ViewOf(c.st, nil).Today; got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
