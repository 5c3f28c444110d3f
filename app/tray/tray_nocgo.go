//go:build darwin && !cgo

package tray

import (
	"context"
	"log/slog"
)

// Run cannot show a menu-bar item: fyne.io/systray needs cgo on macOS, and
// this build has none. It says so and waits for ctx, so the client runs on
// without a tray (the dashboard still works).
func Run(ctx context.Context, c *Controller, log *slog.Logger) {
	if log != nil {
		log.Warn("This build has no menu-bar item (macOS builds need cgo); use 'hivecrawl open' for the dashboard")
	}
	<-ctx.Done()
}
