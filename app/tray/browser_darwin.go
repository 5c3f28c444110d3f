package tray

import (
	"fmt"
	"os/exec"
)

// OpenBrowser shows url in the default browser (open).
func OpenBrowser(url string) error {
	if err := exec.Command("open", url).Run(); err != nil {
		return fmt.Errorf("run open: %w", err)
	}
	return nil
}
