package governor

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// niceLowest is the lowest Unix scheduling priority.
const niceLowest = 19

// LowerPriority gives the process the lowest CPU priority (nice 19). On Linux
// the nice value belongs to each thread, so every existing thread is
// lowered; threads created later inherit it from their creator.
func LowerPriority() error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, niceLowest); err != nil {
			return fmt.Errorf("lower priority: %w", err)
		}
		return nil
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread may exit meanwhile (ESRCH); the others still matter.
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, niceLowest); err != nil && err != unix.ESRCH {
			return fmt.Errorf("lower priority of thread %d: %w", tid, err)
		}
	}
	return nil
}
