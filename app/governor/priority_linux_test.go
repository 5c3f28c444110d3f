package governor

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// LowerPriority lowers every thread of the process, those started while
// it walks the list included: goroutines that lock OS threads make the
// runtime start new ones meanwhile.
func TestLowerPriority(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				// A goroutine that ends locked takes its thread with it,
				// so the next one needs a new thread.
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread()
					close(done)
				}()
				<-done
			}
		})
	}
	err := LowerPriority()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		// The raw Linux syscall returns 20 - nice.
		v, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
		if err != nil {
			continue // the thread ended meanwhile
		}
		if nice := 20 - v; nice != niceLowest {
			t.Fatalf("thread %d has nice %d after LowerPriority, want %d", tid, nice, niceLowest)
		}
	}
}
