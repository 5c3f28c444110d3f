package taskmgr

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/task"
)

// fakeRunner stands in for the crawler (which has its own tests): it emits
// pages, consulting the gate before each as the crawler does, and can hold
// every run until released.
type fakeRunner struct {
	gate    crawler.Gate
	pages   int
	hold    chan struct{} // when set, each run waits for a value after its first page
	failIDs map[string]bool
	// swallowGate makes a refused request end the run without an error,
	// as a crawler that counts it as a failed fetch does.
	swallowGate bool

	mu    sync.Mutex // guards the fields below
	cur   int
	peak  int
	calls map[string]int
}

func (f *fakeRunner) Run(ctx context.Context, t *task.Task, sink crawler.Sink) (*task.Result, error) {
	f.mu.Lock()
	f.cur++
	f.peak = max(f.peak, f.cur)
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[t.ID]++
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.cur--; f.mu.Unlock() }()
	if f.failIDs[t.ID] {
		return nil, errors.New("robots.txt unavailable")
	}
	res := &task.Result{TaskID: t.ID, Channel: t.Channel}
	for i := range f.pages {
		if f.gate != nil {
			if err := f.gate.Wait(ctx); err != nil {
				if f.swallowGate {
					return res, nil
				}
				return nil, err
			}
		}
		if err := sink.Page(&task.Page{URL: fmt.Sprintf("%s%d", t.Seeds[0], i), Status: 200, Depth: i}); err != nil {
			return nil, err
		}
		res.Stats.PagesFetched++
		if i == 0 && f.hold != nil {
			select {
			case <-f.hold:
			case <-ctx.Done():
				return res, ctx.Err() // the partial result, as the crawler returns it
			}
		}
	}
	return res, nil
}

func (f *fakeRunner) running() int { f.mu.Lock(); defer f.mu.Unlock(); return f.cur }
func (f *fakeRunner) resetPeak()   { f.mu.Lock(); f.peak = f.cur; f.mu.Unlock() }
func (f *fakeRunner) maxSeen() int { f.mu.Lock(); defer f.mu.Unlock(); return f.peak }

// fakeUploader records deliveries, reading each spool, and fails the first
// fail calls.
type fakeUploader struct {
	mu     sync.Mutex // guards the fields below
	fail   int
	refuse bool // every upload is refused for good (ErrRefused)
	// stallFirst makes the first upload hang until its context ends.
	stallFirst bool
	calls      int
	delivered  map[string]int // task ID → successful deliveries
	pages      map[string]int // task ID → pages read from the spool
}

func (u *fakeUploader) Upload(ctx context.Context, d Delivery) ([]byte, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.calls++
	if u.stallFirst && u.calls == 1 {
		u.mu.Unlock()
		<-ctx.Done()
		u.mu.Lock()
		return nil, ctx.Err()
	}
	if u.calls <= u.fail {
		return nil, errors.New("storage unavailable")
	}
	if u.refuse {
		return nil, fmt.Errorf("%w: not the lease holder's", ErrRefused)
	}
	n := 0
	if err := crawler.ReadSpool(d.Spool, func(*task.Page) error { n++; return nil }); err != nil {
		return nil, err
	}
	if u.delivered == nil {
		u.delivered, u.pages = map[string]int{}, map[string]int{}
	}
	u.delivered[d.TaskID]++
	u.pages[d.TaskID] = n
	return []byte("receipt:" + d.TaskID), nil
}

type receiptSink struct {
	mu   sync.Mutex
	got  map[string]string
	fail int
}

func (s *receiptSink) Receipt(ctx context.Context, d Delivery, receipt []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		return errors.New("ledger busy")
	}
	if s.got == nil {
		s.got = map[string]string{}
	}
	s.got[d.TaskID] = string(receipt)
	return nil
}

type gateFunc func(ctx context.Context) error

func (f gateFunc) Wait(ctx context.Context) error { return f(ctx) }
