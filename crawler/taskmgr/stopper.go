package taskmgr

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/hivecrawl/hivecrawl/crawler"
)

// ErrStopping is returned by a Stopper's Wait once the manager is shutting
// down: the crawl stops before its next request.
var ErrStopping = errors.New("task manager is shutting down")

// Stopper is the crawler.Gate the task manager controls: it passes through
// to an inner gate (the governor's pause) until Stop, and then refuses every
// request, so a crawl ends after the page it is fetching. Build the
// crawler with it as Config.Gate and give it to the manager in Options.
type Stopper struct {
	inner   crawler.Gate
	stopped chan struct{}
	once    sync.Once
}

var _ crawler.Gate = (*Stopper)(nil)

// NewStopper returns a Stopper in front of inner (nil: never blocks).
func NewStopper(inner crawler.Gate) *Stopper {
	return &Stopper{inner: inner, stopped: make(chan struct{})}
}

// refusedKey marks a task thread's context with the flag Wait sets when it
// refuses that thread a request: the crawl was cut short, whatever Run
// returns (a crawler may count a refused request as a failed page).
type refusedKey struct{}

func withRefusal(ctx context.Context, flag *atomic.Bool) context.Context {
	return context.WithValue(ctx, refusedKey{}, flag)
}

func refuse(ctx context.Context) error {
	if f, ok := ctx.Value(refusedKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
	return ErrStopping
}

// Wait blocks while the inner gate blocks and returns ErrStopping after
// Stop.
func (s *Stopper) Wait(ctx context.Context) error { return s.wait(ctx) }

func (s *Stopper) wait(ctx context.Context) error {
	select {
	case <-s.stopped:
		return refuse(ctx)
	default:
	}
	if s.inner == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := s.inner.Wait(ctx)
	select {
	case <-s.stopped:
		return refuse(ctx)
	default:
		return err
	}
}

// Stop makes every Wait, current and future, return ErrStopping.
func (s *Stopper) Stop() { s.once.Do(func() { close(s.stopped) }) }

// Stopped reports whether Stop was called.
func (s *Stopper) Stopped() bool {
	select {
	case <-s.stopped:
		return true
	default:
		return false
	}
}
