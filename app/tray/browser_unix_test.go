//go:build !windows && !darwin

package tray

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeXdgOpen puts an xdg-open running script first on PATH.
func fakeXdgOpen(t *testing.T, script string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestOpenBrowser(t *testing.T) {
	t.Setenv("DISPLAY", ":99")
	t.Setenv("WAYLAND_DISPLAY", "")

	fakeXdgOpen(t, `echo "xdg-open: no method available for opening '$1'" >&2; exit 3`)
	if err := OpenBrowser("http://127.0.0.1:7339/"); err == nil || !strings.Contains(err.Error(), "no method available") {
		t.Errorf("failing xdg-open: %v, want its words", err)
	}
	fakeXdgOpen(t, `exit 0`)
	if err := OpenBrowser("http://127.0.0.1:7339/"); err != nil {
		t.Errorf("xdg-open that worked: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if err := OpenBrowser("http://127.0.0.1:7339/"); err == nil || !strings.Contains(err.Error(), "xdg-utils") {
		t.Errorf("without xdg-open: %v", err)
	}
	t.Setenv("DISPLAY", "")
	if err := OpenBrowser("http://127.0.0.1:7339/"); !errors.Is(err, ErrNoBrowser) {
		t.Errorf("without a display: %v, want ErrNoBrowser", err)
	}
}
