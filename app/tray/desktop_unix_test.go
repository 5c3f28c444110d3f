//go:build !windows && !darwin

package tray

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHasDesktop(t *testing.T) {
	run := t.TempDir()
	os.WriteFile(filepath.Join(run, "bus"), nil, 0o600)
	cases := []struct {
		name                      string
		display, wayland, bus, rt string
		want                      bool
	}{
		{"server", "", "", "", "", false},
		{"X with a bus", ":0", "", "unix:path=/run/user/1000/bus", "", true},
		{"Wayland with the runtime bus", "", "wayland-0", "", run, true},
		{"X without a bus", ":0", "", "", t.TempDir(), false},
		{"bus without a display (ssh)", "", "", "unix:path=/x", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("DISPLAY", c.display)
			t.Setenv("WAYLAND_DISPLAY", c.wayland)
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", c.bus)
			t.Setenv("XDG_RUNTIME_DIR", c.rt)
			if got := HasDesktop(); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
