//go:build !darwin || cgo

package tray

import (
	"context"
	"log/slog"
	"time"

	"fyne.io/systray"

	"github.com/hivecrawl/hivecrawl/assets"
)

// callTimeout bounds one API call made for a click or a refresh.
const callTimeout = 10 * time.Second

// Run shows c's icon and menu until ctx ends or Quit is clicked. It blocks,
// and on macOS must be called from the main goroutine. A process can run
// only one tray, once.
func Run(ctx context.Context, c *Controller, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan struct{})
	onReady := func() {
		systray.SetTitle("Hivecrawl")
		go func() {
			defer close(served)
			(&menu{c: c, log: log}).serve(ctx, cancel)
		}()
	}
	go func() {
		<-ctx.Done()
		// systray.Quit closes the D-Bus connection, and setting the icon
		// after that panics: quit once the menu stopped touching it (or
		// after a call's time, should the menu never have started).
		select {
		case <-served:
		case <-time.After(callTimeout):
		}
		systray.Quit()
	}()
	// Set before Run, the first icon is part of what systray exports.
	if b, err := assets.IconPNG(c.View().Icon); err == nil {
		systray.SetIcon(b)
	}
	systray.Run(onReady, nil)
}

// menu owns the systray items and shows the controller's views on them.
type menu struct {
	c   *Controller
	log *slog.Logger

	status, today, pause, finish, snooze, dashboard, settings, quit *systray.MenuItem
	presets                                                         []*systray.MenuItem // presetItems' entries
	last                                                            View                // the view shown
	shows                                                           int                 // views shown so far
}

func (m *menu) build(v View) {
	m.status = systray.AddMenuItem(v.Title, "What Hivecrawl is doing")
	m.status.Disable()
	m.today = systray.AddMenuItem(v.Today, "Your contribution")
	m.today.Disable()
	systray.AddSeparator()
	m.pause = systray.AddMenuItem(LabelPause, "Stop crawling until you resume")
	m.finish = systray.AddMenuItem(LabelFinish, "Let the running crawls end, start no new one, then pause")
	m.snooze = systray.AddMenuItem(LabelSnooze, "Pause crawling for an hour")
	systray.AddSeparator()
	m.dashboard = systray.AddMenuItem(LabelDashboard, "Open the dashboard in your browser")
	m.settings = systray.AddMenuItem(LabelSettings, "Change limits and schedule in your browser")
	preset := systray.AddMenuItem(LabelPreset, "A named set of all the limits")
	for _, p := range presetItems {
		m.presets = append(m.presets, preset.AddSubMenuItemCheckbox(p.Label, "Set the "+p.Label+" limits", false))
	}
	systray.AddSeparator()
	m.quit = systray.AddMenuItem(LabelQuit, "Stop Hivecrawl, handing its tasks over")
}

// show puts v on the icon and the menu, touching only what changed: each
// change is a D-Bus signal on Linux.
func (m *menu) show(v View) {
	// An icon set while systray is still exporting its D-Bus objects is
	// lost, so the second show sets it again.
	m.shows++
	if v.Icon != m.last.Icon || m.shows <= 2 {
		if b, err := assets.IconPNG(v.Icon); err == nil {
			systray.SetIcon(b)
		}
	}
	if v.Tooltip != m.last.Tooltip || m.shows <= 2 {
		systray.SetTooltip(v.Tooltip)
	}
	if v.Title != m.last.Title || m.shows == 1 {
		m.status.SetTitle(v.Title)
	}
	if v.Today != m.last.Today || m.shows == 1 {
		m.today.SetTitle(v.Today)
	}
	if off := v.Held || v.Finishing; off != (m.last.Held || m.last.Finishing) || m.shows == 1 {
		if off {
			m.finish.Disable()
		} else {
			m.finish.Enable()
		}
	}
	if v.Preset != m.last.Preset || m.shows == 1 {
		for i, p := range presetItems {
			if p.Preset == v.Preset {
				m.presets[i].Check()
			} else {
				m.presets[i].Uncheck()
			}
		}
	}
	if v.Held != m.last.Held || m.shows == 1 {
		if v.Held {
			m.pause.SetTitle(LabelResume)
			m.pause.SetTooltip("Start crawling again")
		} else {
			m.pause.SetTitle(LabelPause)
			m.pause.SetTooltip("Stop crawling until you resume")
		}
	}
	m.last = v
}

// forward passes clicks on it to out as item until ctx ends. systray drops
// a click when nobody is receiving at that moment, so every entry has a
// receiver of its own that is always ready.
func forward(ctx context.Context, it *systray.MenuItem, item Item, out chan<- Item) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-it.ClickedCh:
			select {
			case out <- item:
			case <-ctx.Done():
				return
			}
		}
	}
}

func (m *menu) serve(ctx context.Context, quit func()) {
	refresh := func() View {
		rctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		return m.c.Refresh(rctx)
	}
	v := refresh()
	m.build(v)
	m.show(v)
	t := time.NewTicker(m.c.opts.Interval)
	defer t.Stop()
	click := func(item Item) {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		v, err := m.c.Click(cctx, item)
		if err != nil {
			m.log.Warn("Tray action failed", "item", item, "err", err)
		}
		if ctx.Err() == nil { // not on the way out (Quit)
			m.show(v)
		}
	}
	clicks := make(chan Item, 8)
	go forward(ctx, m.pause, ItemPauseResume, clicks)
	go forward(ctx, m.finish, ItemFinish, clicks)
	go forward(ctx, m.snooze, ItemSnooze, clicks)
	go forward(ctx, m.dashboard, ItemDashboard, clicks)
	go forward(ctx, m.settings, ItemSettings, clicks)
	go forward(ctx, m.quit, ItemQuit, clicks)
	for i, p := range presetItems {
		go forward(ctx, m.presets[i], p.Item, clicks)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.show(refresh())
		case item := <-clicks:
			click(item)
			if item == ItemQuit {
				quit()
				return
			}
		}
	}
}
