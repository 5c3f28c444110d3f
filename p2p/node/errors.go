package node

import "errors"

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
	// ErrTooFar refuses a shared task (share.go) whose host this peer
	// measured more than shareReach times as far as the sharer did. The
	// sharer keeps the task and offers it elsewhere.
	ErrTooFar = errors.New("host too far for a shared task")
)

// Reasons a peer refuses a genuine, correctly signed task (admit.go). Their
// text travels in insert refusals; Insert wraps the one a refusal names.
var (
	// ErrNoLease: the task carries no lease on its host, or the lease has
	// ended. A task not started before its lease ends is never started.
	ErrNoLease = errors.New("task has no live lease")
	// ErrIssuedAhead: the task was issued more than MaxClockSkew after
	// this peer's clock. The manager's clock is the reference, so this
	// peer's clock is probably behind.
	ErrIssuedAhead = errors.New("task issued in the future")
	// ErrTargetMismatch: the task's signed target point is missing, of
	// another dimension than the overlay's, or not the point the insert
	// was routed to.
	ErrTargetMismatch = errors.New("task not sent to its signed target")
	// ErrMisaimed: a load-balanced or shared insert whose path of
	// certificates does not lead from the target's owner to this peer
	// through abutting zones, or whose proof does not let this peer claim
	// the task.
	ErrMisaimed = errors.New("load-balanced task not from its target's owner")
	// ErrSeen: this peer has taken the task under this lease before
	// (queued it, balanced it to a neighbour, or received it in a
	// handover).
	ErrSeen = errors.New("task seen before")
)
