package channels

import "errors"

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no channel or task with that ID.
	ErrNotFound = errors.New("not found")
	// ErrBadSeed: a seed URL is not an absolute http(s) URL with a host.
	ErrBadSeed = errors.New("bad seed URL")
	// ErrLimit: the operator's limit on channels is reached.
	ErrLimit = errors.New("channel limit reached")
	// ErrNotHolder: a result came from a peer that does not hold the
	// task's lease.
	ErrNotHolder = errors.New("result from a peer that does not hold the task's lease")
	// ErrNotGrantable: a task is not open, was sent already (by another
	// manager sharing the database), or names no host.
	ErrNotGrantable = errors.New("task not grantable")
	// ErrIssued: the round was issued already (another manager sharing
	// the database got there first).
	ErrIssued = errors.New("round already issued")
)
