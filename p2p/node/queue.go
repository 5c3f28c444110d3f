package node

import (
	"context"

	"github.com/hivecrawl/hivecrawl/task"
)

// Queue is where accepted tasks go: the client's bbolt task queue
// implements it. A Queue that also implements SeenSet keeps the node's
// record of tasks seen, across restarts.
type Queue interface {
	// Enqueue stores a verified task with the envelope it came in, so the
	// task can be handed over again with its signature, and the proof
	// (zonecert.Proof, encoded) that its host's lease may be claimed
	// here. When the queue holds as many tasks as it may, its error wraps
	// ErrQueueFull.
	Enqueue(ctx context.Context, t *task.Task, envelope, proof []byte) error
	// Load returns the pieces (tasks queued and running) and the sum of
	// their expected pages, for RTL and RPL. It is called with the node's
	// lock held and must not call back into the node.
	Load() (pieces int, pages int64)
	// Drain removes and returns every queued and running task's envelope,
	// for a graceful leave.
	Drain(ctx context.Context) (queued, running [][]byte, err error)
}

// Returner is a Queue that can give tasks back to the manager that issued
// them: those of a leave that no neighbour queued (the heir's queue was
// full, or no neighbour took the zones). The manager issues their hosts
// again at once instead of after their deadline.
type Returner interface {
	Return(ctx context.Context, envelopes [][]byte) error
}

// Fuller is a Queue that can tell it holds as many tasks as it may. The
// node then refuses or balances an insert before recording it as seen, so
// that the manager's next try of the task is not refused as a replay.
type Fuller interface {
	// Full reports whether Enqueue would turn a new task away. Like
	// Load, it is called with the node's lock held.
	Full() bool
}
