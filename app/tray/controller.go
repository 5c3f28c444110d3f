package tray

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// API is what the tray needs from the client's local API; *localapi.Client
// has these methods. (Five of them are one resource's verbs; SetConfig
// sets a preset.)
type API interface {
	Status(ctx context.Context) (localapi.Status, error)
	Pause(ctx context.Context) (localapi.Status, error)
	Finish(ctx context.Context) (localapi.Status, error)
	Resume(ctx context.Context) (localapi.Status, error)
	Snooze(ctx context.Context, d string) (time.Time, error)
	SetConfig(ctx context.Context, changes ...localapi.Change) (json.RawMessage, error)
}

var _ API = (*localapi.Client)(nil)

// Item is a menu entry the contributor can click.
type Item int

// The clickable menu entries.
const (
	ItemPauseResume    Item = iota // Pause, or Resume while Held
	ItemSnooze                     // Snooze for 1 hour
	ItemDashboard                  // Open dashboard
	ItemSettings                   // Settings
	ItemQuit                       // Quit (graceful)
	ItemFinish                     // Finish, then pause
	ItemPresetQuiet                // Preset › Quiet
	ItemPresetStandard             // Preset › Standard
	ItemPresetFull                 // Preset › Full
)

// presetItems are the Preset submenu's entries, in its order, with the
// preset each sets (config.Presets).
var presetItems = []struct {
	Item   Item
	Preset string
	Label  string
}{
	{ItemPresetQuiet, config.PresetQuiet, "Quiet"},
	{ItemPresetStandard, config.PresetStandard, "Standard"},
	{ItemPresetFull, config.PresetFull, "Full"},
}

// Labels of the fixed menu entries.
const (
	LabelPause     = "Pause"
	LabelResume    = "Resume"
	LabelSnooze    = "Snooze for 1 hour"
	LabelFinish    = "Finish, then pause"
	LabelDashboard = "Open dashboard"
	LabelSettings  = "Settings…"
	LabelQuit      = "Quit Hivecrawl"
	LabelPreset    = "Preset"
)

// Options configure a Controller. API is required.
type Options struct {
	API API
	// SignIn returns a one-time URL that opens the web page signed in at
	// page ("" = dashboard, "settings"); ui/web.LoginURL does this.
	SignIn func(ctx context.Context, page string) (string, error)
	// Open shows url in the default browser; default OpenBrowser.
	Open func(url string) error
	// Tell shows a desktop notification (notify.Desktop's Send does). When
	// no browser starts, "Open dashboard" tells the sign-in link this way
	// rather than doing nothing to be seen; nil = the error is only
	// returned.
	Tell func(ctx context.Context, title, body string) error
	// Quit stops the client gracefully (it hands over its tasks); the tray
	// closes after it.
	Quit func()
	// Interval between status reads; default 2s.
	Interval time.Duration
}

// Controller is the tray's logic: it turns statuses into Views and clicks
// into API calls.
type Controller struct {
	opts Options

	mu   sync.Mutex // guards view
	view View
}

// NewController returns a controller for opts.
func NewController(opts Options) *Controller {
	if opts.Open == nil {
		opts.Open = OpenBrowser
	}
	if opts.Interval <= 0 {
		opts.Interval = 2 * time.Second
	}
	return &Controller{opts: opts, view: ViewOf(localapi.Status{}, loopback.ErrNotRunning)}
}

// Refresh reads the status and returns the new view.
func (c *Controller) Refresh(ctx context.Context) View {
	v := ViewOf(c.opts.API.Status(ctx))
	c.mu.Lock()
	c.view = v
	c.mu.Unlock()
	return v
}

// View returns the latest view.
func (c *Controller) View() View {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.view
}

// Click does what item stands for, then returns the refreshed view.
func (c *Controller) Click(ctx context.Context, item Item) (View, error) {
	var err error
	switch item {
	case ItemPauseResume:
		if c.View().Held {
			_, err = c.opts.API.Resume(ctx)
		} else {
			_, err = c.opts.API.Pause(ctx)
		}
	case ItemSnooze:
		_, err = c.opts.API.Snooze(ctx, "1h")
	case ItemFinish:
		_, err = c.opts.API.Finish(ctx)
	case ItemDashboard:
		err = c.open(ctx, "")
	case ItemSettings:
		err = c.open(ctx, "settings")
	case ItemPresetQuiet, ItemPresetStandard, ItemPresetFull:
		for _, p := range presetItems {
			if p.Item == item {
				_, err = c.opts.API.SetConfig(ctx, localapi.Change{Key: "preset", Value: p.Preset})
			}
		}
	case ItemQuit:
		if c.opts.Quit != nil {
			c.opts.Quit()
		}
		return c.View(), nil
	default:
		return c.View(), fmt.Errorf("unknown tray menu item %d", item)
	}
	return c.Refresh(ctx), err
}

func (c *Controller) open(ctx context.Context, page string) error {
	if c.opts.SignIn == nil {
		return fmt.Errorf("open the web page: no sign-in available")
	}
	u, err := c.opts.SignIn(ctx, page)
	if err != nil {
		return err
	}
	err = c.opts.Open(u)
	if err == nil {
		return nil
	}
	if c.opts.Tell == nil {
		return fmt.Errorf("open the browser: %w", err)
	}
	if terr := c.opts.Tell(ctx, NoBrowserTitle, NoBrowserHint(err, u)); terr != nil {
		return fmt.Errorf("open the browser: %w; and tell its link: %w", err, terr)
	}
	return nil
}
