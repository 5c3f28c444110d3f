package services

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestFirstFailureStopsTheRest: a part that fails ends the others'
// context, Wait returns only once they have returned, and the error names
// the part.
func TestFirstFailureStopsTheRest(t *testing.T) {
	g := New(context.Background())
	var stopped atomic.Int32
	for _, name := range []string{"a", "b"} {
		g.Go(name, func(ctx context.Context) error {
			<-ctx.Done()
			time.Sleep(10 * time.Millisecond)
			stopped.Add(1)
			return nil
		})
	}
	boom := errors.New("boom")
	g.Go("broken part", func(context.Context) error { return boom })
	err := g.Wait()
	if !errors.Is(err, boom) || err.Error() != "broken part: boom" {
		t.Fatalf("Wait = %v, want the broken part's error, named", err)
	}
	if n := stopped.Load(); n != 2 {
		t.Fatalf("Wait returned with %d of 2 parts stopped", n)
	}
}

// TestParentEnds: the parts stop when the caller's context ends, and a
// clean stop is no error.
func TestParentEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	g := New(ctx)
	g.Go("a", func(ctx context.Context) error { <-ctx.Done(); return nil })
	cancel()
	if err := g.Wait(); err != nil {
		t.Fatalf("Wait = %v after a clean stop", err)
	}
}
