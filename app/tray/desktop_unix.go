//go:build !windows && !darwin

package tray

import (
	"os"
	"path/filepath"
)

// HasDesktop reports whether a graphical session with a D-Bus session bus,
// which the tray needs, is there.
func HasDesktop() bool {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return false
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "bus")); err == nil {
			return true
		}
	}
	return false
}
