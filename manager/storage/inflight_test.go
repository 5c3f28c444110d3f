package storage

import (
	"context"
	"testing"
	"time"
)

// TestInflightWaitsForTheLastUpload: a wait returns at once with nothing
// under way, blocks while work runs (also work started while it waits),
// and returns when the last of it ends, or when its context does.
func TestInflightWaitsForTheLastUpload(t *testing.T) {
	var f inflight
	if err := f.wait(context.Background()); err != nil {
		t.Fatalf("idle wait: %v", err)
	}
	f.add(1)
	done := make(chan error, 1)
	go func() { done <- f.wait(context.Background()) }()
	f.add(1) // a second upload begins while someone waits
	f.add(-1)
	select {
	case err := <-done:
		t.Fatalf("wait returned (%v) with an upload still under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	f.add(-1)
	if err := <-done; err != nil {
		t.Fatalf("wait after the last upload: %v", err)
	}

	f.add(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.wait(ctx); err != context.Canceled {
		t.Errorf("wait with a cancelled context while busy: %v, want context.Canceled", err)
	}
	f.add(-1)
}
