package governor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// LowerPriority puts the process in macOS's background band
// (PRIO_DARWIN_BG: low CPU and I/O priority, throttled networking on some
// versions) and at nice 19.
func LowerPriority() error {
	if err := unix.Setpriority(unix.PRIO_DARWIN_PROCESS, 0, unix.PRIO_DARWIN_BG); err != nil {
		return fmt.Errorf("enter background band: %w", err)
	}
	if err := unix.Setpriority(unix.PRIO_PROCESS, 0, 19); err != nil {
		return fmt.Errorf("lower priority: %w", err)
	}
	return nil
}
