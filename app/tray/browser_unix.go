//go:build !windows && !darwin

package tray

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// browserWait is how long OpenBrowser waits to hear that xdg-open failed.
// xdg-open returns when the browser has the URL, or, with some browsers,
// only when the browser exits: still running by then counts as opened.
const browserWait = 3 * time.Second

// OpenBrowser shows url in the desktop's default browser (xdg-open), and
// says when none could be started.
func OpenBrowser(url string) error {
	// Without a display, xdg-open would start a text browser in this
	// terminal, or fail.
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return ErrNoBrowser
	}
	cmd := exec.Command("xdg-open", url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run xdg-open: %w (Debian's package xdg-utils has it)", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return fmt.Errorf("xdg-open could not start a browser: %s", msg)
		}
		return nil
	case <-time.After(browserWait):
		return nil // the wait goroutine reaps it
	}
}
