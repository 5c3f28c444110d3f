//go:build unix

package cputime

import "testing"

// TestProcess: a running test process has used CPU time, and the count
// never goes back.
func TestProcess(t *testing.T) {
	first := Process()
	if first <= 0 {
		t.Fatalf("Process = %v, want the CPU time used so far", first)
	}
	if second := Process(); second < first {
		t.Errorf("Process went back from %v to %v", first, second)
	}
}
