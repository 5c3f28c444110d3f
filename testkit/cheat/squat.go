package cheat

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/swarm/adversary"
	"github.com/hivecrawl/hivecrawl/task"
)

// Squatter is a taskmgr.Runner that fetches nothing. The task manager
// claims each task's lease before Run and renews it while Run runs,
// showing the crawl's progress, so a squatter's renewals show none: it
// holds the lease until the manager or the lease's expiry ends it, and
// then fails the task without a result.
type Squatter struct {
	// Dir is where the adversary.SquatLog is written.
	Dir string
}

var _ taskmgr.Runner = Squatter{}

// ErrSquatted is the error of every task a Squatter ran.
var ErrSquatted = errors.New("cheat: the task's lease was squatted, its host not crawled")

// Run holds t's lease until ctx, which the lease bounds, ends.
func (s Squatter) Run(ctx context.Context, t *task.Task, _ crawler.Sink) (*task.Result, error) {
	path := filepath.Join(s.Dir, adversary.SquatLog)
	rec := adversary.Squatted{Task: t.ID, Host: t.Host(), Claimed: time.Now().UTC()}
	if err := adversary.AppendJSONL(path, []any{rec}); err != nil {
		return nil, err
	}
	<-ctx.Done()
	cause := context.Cause(ctx)
	rec.Ended, rec.Cause, rec.ByManager = time.Now().UTC(), cause.Error(), errors.Is(cause, taskmgr.ErrLeaseOver)
	if err := adversary.AppendJSONL(path, []any{rec}); err != nil {
		return nil, err
	}
	return nil, ErrSquatted
}
