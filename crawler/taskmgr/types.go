package taskmgr

import (
	"context"
	"errors"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/task"
)

// Runner crawls one task, sending its pages to sink. *crawler.Crawler is a
// Runner (app passes one).
type Runner interface {
	Run(ctx context.Context, t *task.Task, sink crawler.Sink) (*task.Result, error)
}

// Resumer is a Runner that checkpoints its progress and resumes from a
// checkpoint; *crawler.Crawler is one. With it, a task interrupted by a
// stop or a crash goes on where its last checkpoint left it.
type Resumer interface {
	RunFrom(ctx context.Context, t *task.Task, sink crawler.Sink, opts crawler.RunOptions) (*task.Result, error)
}

// Delivery is a finished task's result on its way to the storage module.
type Delivery struct {
	TaskID  string `json:"task_id"`
	Channel string `json:"channel"`
	// Raw is the task as it arrived (later a signed envelope), so the storage
	// module can check what was asked for.
	Raw    []byte       `json:"raw"`
	Result *task.Result `json:"result"`
	// Spool is the path of the crawler.Spool file holding the task's pages
	// (read it with crawler.ReadSpool). It stays until the delivery is
	// acknowledged.
	Spool string `json:"spool"`
}

// Uploader delivers a finished task's result and returns the receipt the
// storage module signed. It is called again for the same task after
// errors and after crashes, so it must treat a repeated task ID as one
// delivery.
type Uploader interface {
	Upload(ctx context.Context, d Delivery) (receipt []byte, err error)
}

// ErrRefused is wrapped by an Uploader's error when the receiving end
// refused the result for good (not its lease holder's, not a task it
// issued): it is not sent again, and its spool is deleted.
var ErrRefused = errors.New("result refused for good")

// ReceiptSink keeps receipts (the credits ledger). Like Uploader, it may see
// a task's receipt twice after a crash and must count it once.
type ReceiptSink interface {
	Receipt(ctx context.Context, d Delivery, receipt []byte) error
}

// Reporter tells the manager about tasks cancelled for a load-dependent
// reason, so its recrawl strategy counts them (design.md §9). Best effort: a
// report that does not arrive leaves the task to the manager's deadline,
// where it counts as lost instead.
type Reporter interface {
	Expired(ctx context.Context, raw []byte) error
}

// Outcomes hears how each finished crawl ended: strike is its
// task.Result.Strike, "" when nothing stopped it to spare its host.
type Outcomes interface {
	TaskEnded(strike string)
}
