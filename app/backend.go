package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

var _ localapi.Backend = (*Client)(nil)

// Config returns the live configuration as JSON.
func (c *Client) Config(ctx context.Context) (json.RawMessage, error) {
	cfg := c.cfg.Get()
	// With the preset the limits equal, for the Settings page to show.
	b, err := json.Marshal(struct {
		config.Config
		Preset string `json:"preset"`
	}{cfg, cfg.Preset()})
	if err != nil {
		return nil, fmt.Errorf("encode configuration: %w", err)
	}
	return b, nil
}

// SetConfig applies KEY=VALUE changes, all or none; they take effect at
// once and are saved.
func (c *Client) SetConfig(ctx context.Context, changes []localapi.Change) error {
	cs := make([]config.Change, len(changes))
	for i, ch := range changes {
		if ch.Key == "start_at_login" && !c.opts.Desktop {
			if on, err := config.ParseSwitch(strings.TrimSpace(ch.Value)); err == nil && on {
				return localapi.Conflict(errors.New(errHeadlessLogin))
			}
		}
		cs[i] = config.Change{Key: ch.Key, Value: ch.Value}
	}
	return c.changed(c.cfg.Apply(cs...))
}

// errHeadlessLogin is why start_at_login cannot be turned on in a client
// without a desktop: the desktop's autostart entry starts the client with
// its tray, and there is no such login here.
const errHeadlessLogin = "start_at_login has no effect here: this client runs without a desktop (headless), so there is no login to start it at. " +
	"To start it with the computer, enable its systemd user unit: systemctl --user enable --now hivecrawl " +
	"(and loginctl enable-linger to keep it running while you are logged out)"

// Pause pauses crawling until Resume; it survives restarts.
func (c *Client) Pause(ctx context.Context) error {
	return c.changed(c.cfg.Update(func(cfg *config.Config) error { cfg.Paused = true; return nil }))
}

// Finish lets the running crawls end, starting no new one, and then
// pauses as Pause does ("finish, then pause"): for a laptop's evening, a
// crawl is not cut at its middle. Resume calls it off. Already paused, it
// does nothing; called twice, it finishes once.
func (c *Client) Finish(ctx context.Context) error {
	if c.cfg.Get().Paused || !c.finishing.CompareAndSwap(false, true) {
		return nil
	}
	c.log.Info("Finishing the running crawls, then pausing", "running", c.mgr.Running())
	go c.finishThenPause()
	return nil
}

// finishEvery is how often a finishing client looks whether its crawls
// ended.
const finishEvery = 250 * time.Millisecond

// finishThenPause waits until no task runs, then pauses; it stops when
// Resume called the finish off or the client closed.
func (c *Client) finishThenPause() {
	for c.finishing.Load() && !c.closed.Load() {
		if c.mgr.Running() == 0 {
			// The pause holds starts from here, before the finish lets go
			// of them.
			err := c.changed(c.cfg.Update(func(cfg *config.Config) error { cfg.Paused = true; return nil }))
			c.finishing.Store(false)
			if err != nil {
				c.log.Warn("The running crawls ended; pausing failed", "err", err)
				return
			}
			c.log.Info("The running crawls ended; paused")
			return
		}
		time.Sleep(finishEvery)
	}
}

// Resume ends a pause and a snooze, and calls off a finish.
func (c *Client) Resume(ctx context.Context) error {
	c.finishing.Store(false) // apply wakes the task manager to start again
	return c.changed(c.cfg.Update(func(cfg *config.Config) error {
		cfg.Paused, cfg.SnoozeUntil = false, time.Time{}
		return nil
	}))
}

// Snooze pauses crawling until the time d names ("1h", "tomorrow").
func (c *Client) Snooze(ctx context.Context, d string) (time.Time, error) {
	until, err := config.SnoozeUntil(c.opts.Now(), d)
	if err != nil {
		return time.Time{}, callerError(err)
	}
	err = c.cfg.Update(func(cfg *config.Config) error { cfg.SnoozeUntil = until; return nil })
	return until, c.changed(err)
}

// changed applies a change that took effect at once, so the API's answer
// shows it, and marks configuration errors as the caller's. A change that
// applies but cannot be saved (the file is damaged) still fails, so the
// contributor hears that it will not outlast the client.
func (c *Client) changed(err error) error {
	if err != nil && !errors.Is(err, config.ErrNotSaved) {
		return callerError(err)
	}
	c.apply(c.cfg.Get())
	return err
}

// callerError marks configuration errors the request caused.
func callerError(err error) error {
	if errors.Is(err, config.ErrInvalid) {
		return localapi.Invalid(err)
	}
	return err
}
