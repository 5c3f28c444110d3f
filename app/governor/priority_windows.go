package governor

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// LowerPriority puts the process in the idle priority class, so it gets the
// CPU only when nothing else wants it (as BOINC does).
func LowerPriority() error {
	if err := windows.SetPriorityClass(windows.CurrentProcess(), windows.IDLE_PRIORITY_CLASS); err != nil {
		return fmt.Errorf("lower priority: %w", err)
	}
	return nil
}
