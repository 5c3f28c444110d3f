package governor

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// niceLowest is the lowest Unix scheduling priority.
const niceLowest = 19

// LowerPriority gives the process the lowest CPU priority (nice 19). On
// Linux the nice value belongs to each thread, so every thread is
// lowered; threads created later inherit it from their creator. A thread
// that one not lowered yet was starting while the list was read shows up
// in the list only later, so the walk repeats, a moment apart, until it
// finds every thread lowered.
func LowerPriority() error {
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			if err := unix.Setpriority(unix.PRIO_PROCESS, 0, niceLowest); err != nil {
				return fmt.Errorf("lower priority: %w", err)
			}
			return nil
		}
		lowered := 0
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			// The raw Linux syscall returns 20 - nice. A thread may exit
			// meanwhile (ESRCH); the others still matter.
			if v, err := unix.Getpriority(unix.PRIO_PROCESS, tid); err != nil || 20-v == niceLowest {
				continue
			}
			if err := unix.Setpriority(unix.PRIO_PROCESS, tid, niceLowest); err != nil && err != unix.ESRCH {
				return fmt.Errorf("lower priority of thread %d: %w", tid, err)
			}
			lowered++
		}
		if lowered == 0 {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}
