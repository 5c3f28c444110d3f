package queue

import "errors"

// ErrFull is returned by Enqueue when the queue already holds its maximum
// number of waiting tasks. It is a load-dependent refusal: the sender should
// try another peer.
var ErrFull = errors.New("task queue is full")

// ErrDuplicate is returned by Enqueue when a task with the same ID is
// already known, in any state.
var ErrDuplicate = errors.New("task already in queue")

// ErrNotFound is returned when no task has the given ID.
var ErrNotFound = errors.New("task not found")

// ErrState is returned when a change does not apply to the task's current
// state, for example finishing a task that was handed over meanwhile.
var ErrState = errors.New("task is not in the state this change needs")

// ErrCorrupt is wrapped by errors about a queue file or record that cannot be
// decoded.
var ErrCorrupt = errors.New("task queue file is damaged")
