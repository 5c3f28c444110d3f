//go:build !windows && !darwin

package tray

import (
	"fmt"
	"os/exec"
)

// OpenBrowser shows url in the desktop's default browser (xdg-open).
func OpenBrowser(url string) error {
	cmd := exec.Command("xdg-open", url)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run xdg-open: %w", err)
	}
	go cmd.Wait() // reap it; xdg-open returns once the browser has the URL
	return nil
}
