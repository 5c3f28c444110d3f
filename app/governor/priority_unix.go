//go:build unix && !linux && !darwin

package governor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// LowerPriority gives the process the lowest CPU priority (nice 19).
func LowerPriority() error {
	if err := unix.Setpriority(unix.PRIO_PROCESS, 0, 19); err != nil {
		return fmt.Errorf("lower priority: %w", err)
	}
	return nil
}
