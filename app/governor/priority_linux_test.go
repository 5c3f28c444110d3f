package governor

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestLowerPriority(t *testing.T) {
	if err := LowerPriority(); err != nil {
		t.Fatal(err)
	}
	// The raw Linux syscall returns 20 - nice.
	v, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	if nice := 20 - v; nice != niceLowest {
		t.Fatalf("nice = %d after LowerPriority, want %d", nice, niceLowest)
	}
}
