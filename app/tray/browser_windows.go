package tray

import (
	"fmt"
	"os/exec"
)

// OpenBrowser shows url in the default browser (the URL protocol handler).
func OpenBrowser(url string) error {
	if err := exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start(); err != nil {
		return fmt.Errorf("open the browser: %w", err)
	}
	return nil
}
