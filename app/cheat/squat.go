package cheat

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/task"
)

// SquatLog is the file, in a squatter's data directory, listing the
// leases it held: a JSON Squatted per line, once when the lease was
// claimed and again when it ended.
const SquatLog = "squat.jsonl"

// Squatted is one lease a squatter held.
type Squatted struct {
	Task    string    `json:"task"`
	Host    string    `json:"host"`
	Claimed time.Time `json:"claimed"`
	// Ended is when the lease ended, zero while it is held; Cause why.
	// ByManager is set when the manager ended it (a renewal refused), as
	// opposed to the squatter stopping.
	Ended     time.Time `json:"ended,omitzero"`
	Cause     string    `json:"cause,omitempty"`
	ByManager bool      `json:"by_manager,omitempty"`
}

// Held returns how long the lease was held, or 0 while it is.
func (s Squatted) Held() time.Duration {
	if s.Ended.IsZero() {
		return 0
	}
	return s.Ended.Sub(s.Claimed)
}

// Squatter is a taskmgr.Runner that fetches nothing. The task manager
// claims each task's lease before Run and renews it while Run runs,
// showing the crawl's progress, so a squatter's renewals show none: it
// holds the lease until the manager or the lease's expiry ends it, and
// then fails the task without a result.
type Squatter struct {
	// Dir is where SquatLog is written.
	Dir string
}

var _ taskmgr.Runner = Squatter{}

// ErrSquatted is the error of every task a Squatter ran.
var ErrSquatted = errors.New("cheat: the task's lease was squatted, its host not crawled")

// Run holds t's lease until ctx, which the lease bounds, ends.
func (s Squatter) Run(ctx context.Context, t *task.Task, _ crawler.Sink) (*task.Result, error) {
	path := filepath.Join(s.Dir, SquatLog)
	rec := Squatted{Task: t.ID, Host: t.Host(), Claimed: time.Now().UTC()}
	if err := appendJSON(path, []any{rec}); err != nil {
		return nil, err
	}
	<-ctx.Done()
	cause := context.Cause(ctx)
	rec.Ended, rec.Cause, rec.ByManager = time.Now().UTC(), cause.Error(), errors.Is(cause, taskmgr.ErrLeaseOver)
	if err := appendJSON(path, []any{rec}); err != nil {
		return nil, err
	}
	return nil, ErrSquatted
}

// ReadSquats returns the leases listed in the SquatLog of data directory
// dir, each as it was last written, in the order they were claimed.
func ReadSquats(dir string) ([]Squatted, error) {
	recs, err := readJSONL[Squatted](filepath.Join(dir, SquatLog))
	if err != nil {
		return nil, err
	}
	var out []Squatted
	at := map[string]int{}
	for _, r := range recs {
		if i, ok := at[r.Task]; ok {
			out[i] = r
			continue
		}
		at[r.Task] = len(out)
		out = append(out, r)
	}
	return out, nil
}
