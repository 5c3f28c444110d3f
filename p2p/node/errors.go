package node

import (
	"errors"

	"github.com/hivecrawl/hivecrawl/p2p/admission"
)

// Sentinel errors callers branch on.
var (
	// ErrNotJoined is returned by operations that need zones before Join or
	// Start succeeded, or after Leave.
	ErrNotJoined = errors.New("node has not joined the overlay")
	// ErrLeaving is returned to peers that ask a leaving node for anything.
	ErrLeaving = errors.New("node is leaving the overlay")
	// ErrJoinFailed is returned when no owner could be reached for the
	// join point.
	ErrJoinFailed = errors.New("join failed")
	// ErrQueueFull is wrapped in a Queue's Enqueue error when the queue
	// holds as many tasks as it may. The node then balances the task to a
	// lighter neighbour, as it does above its load threshold.
	ErrQueueFull = errors.New("task queue is full")
	// ErrNoIdleThread refuses a shared task (share.go) when no crawl
	// thread here is free for it: the idle threads the sharer heard of
	// have been taken, by tasks it shared before or by others. The sharer
	// keeps the task.
	ErrNoIdleThread = errors.New("no idle crawl thread for a shared task")
)

// refusal turns a refusal message from the overlay back into an error
// that errors.Is matches against the reasons a peer refuses a task
// (p2p/admission) and this package's own.
func refusal(msg string) error { return admission.Refusal(msg, ErrLeaving, ErrNoIdleThread) }
