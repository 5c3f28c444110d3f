package app

import (
	"context"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/internal/floor"
	"github.com/hivecrawl/hivecrawl/task"
)

// delayFloor is the least politeness wait a network's task may ask for:
// opts.DelayFloor, else floor.MinDelay outside the test-only switches
// (whose fixtures are local) and none under them.
func delayFloor(opts Options) time.Duration {
	switch {
	case opts.DelayFloor > 0:
		return opts.DelayFloor
	case opts.AllowLoopback || opts.AllowTestNets:
		return 0
	}
	return floor.MinDelay
}

// checkPolicy refuses a task whose politeness policy is under the floor
// (internal/floor): a wait below min, or a User-Agent or robots.txt
// token of another crawler.
func checkPolicy(t *task.Task, min time.Duration) error {
	if err := floor.Delay(time.Duration(t.Delay), min); err != nil {
		return err
	}
	for _, ua := range []string{t.Policy.UserAgent, t.Policy.Token} {
		if err := floor.UserAgent(ua); err != nil {
			return err
		}
	}
	return nil
}

// policyFloor holds a network's tasks to the politeness floor with a
// wait of at least min: a task under it is refused, and the network with
// it (network.refuse).
type policyFloor struct {
	nw  *network
	min time.Duration
}

// check returns why t is under the floor, nil when it is not.
func (f *policyFloor) check(t *task.Task) error {
	if err := checkPolicy(t, f.min); err != nil {
		f.nw.refuse(err)
		return err
	}
	return nil
}

// floorRunner runs a network's tasks only when their policy keeps the
// floor: the last check before a task's first request, whichever way it
// came (the overlay, a handover, the queue of an earlier run).
type floorRunner struct {
	cr    *crawler.Crawler
	floor *policyFloor
}

var (
	_ taskmgr.Runner  = floorRunner{}
	_ taskmgr.Resumer = floorRunner{}
)

func (f floorRunner) check(t *task.Task) error {
	if err := f.floor.check(t); err != nil {
		return fmt.Errorf("task %s not crawled: %w", t.ID, err)
	}
	return nil
}

// Run crawls t once its policy passed.
func (f floorRunner) Run(ctx context.Context, t *task.Task, sink crawler.Sink) (*task.Result, error) {
	if err := f.check(t); err != nil {
		return nil, err
	}
	return f.cr.Run(ctx, t, sink)
}

// RunFrom resumes t once its policy passed.
func (f floorRunner) RunFrom(ctx context.Context, t *task.Task, sink crawler.Sink, opts crawler.RunOptions) (*task.Result, error) {
	if err := f.check(t); err != nil {
		return nil, err
	}
	return f.cr.RunFrom(ctx, t, sink, opts)
}
