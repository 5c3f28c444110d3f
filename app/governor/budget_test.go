package governor

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Work admitted together never exceeds the limit, however many callers
// race; work larger than the limit runs alone; waiters give up with ctx.
func TestBudget(t *testing.T) {
	b := NewBudget(100)
	var inUse, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			n := int64(10 + i%5*20) // 10–90
			release, err := b.Admit(context.Background(), n)
			if err != nil {
				t.Error(err)
				return
			}
			now := inUse.Add(n)
			for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
			}
			time.Sleep(time.Millisecond)
			inUse.Add(-n)
			release()
			release() // a second call gives nothing back twice
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 100 {
		t.Errorf("%d admitted at once, over the limit of 100", p)
	}
	if b.Used() != 0 {
		t.Errorf("%d still admitted after every release", b.Used())
	}

	big, err := b.Admit(context.Background(), 500)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Admit(ctx, 1); err == nil {
		t.Error("admitted beside work larger than the whole budget")
	}
	done := make(chan struct{})
	go func() {
		r, err := b.Admit(context.Background(), 1)
		if err == nil {
			r()
		}
		close(done)
	}()
	b.SetLimit(0) // no limit: the waiter goes at once
	<-done
	big()
}
