// Package queue is the client's on-disk task queue (paper 000 §2.2): crawl
// tasks waiting for a task thread, the ones running, and the finished ones
// whose results still wait to be uploaded, kept in a bbolt file in the data
// directory.
//
// Each task is stored with its raw bytes (the signed envelope it arrived in,
// passed on untouched at handover) and its decoded form. A task moves
//
//	queued → running → done | cancelled (with a reason) | set aside
//	queued → cancelled (waited past its recrawl interval)
//	running → queued (Requeue: the task cannot start yet)
//	queued | running → handed over (graceful leave)
//	queued → offered → queued | handed over (shared with an idle neighbour)
//
// and a done task's result moves through the upload states
//
//	pending → delivered (receipt kept) → recorded (receipt in the ledger).
//
// The queue is FIFO with a maximum length; Next passes over the tasks its
// caller turns down, which keep their place. Enqueue on a full queue fails
// with ErrFull, which the overlay counts as a load-dependent refusal
// (design.md §9). A task that waited longer than its recrawl interval is
// cancelled when Next reaches it. The same file holds the seen set (Seen),
// which refuses a task delivery replayed to the peer, also after a restart.
//
// Crash safety: every change is one bbolt transaction, so after a crash the
// file holds the state of the last committed change. A running task's
// checkpoint (SaveProgress, in the task manager's encoding) is kept in its
// record, and Open returns tasks that were running when the process stopped
// to the queue, at their old place and with their checkpoint, so that the
// task manager resumes each crawl from its last checkpoint. When the process
// did not Close the queue, a task the process died in Options.MaxCrashes
// times in a row, getting no further each time (Options.Reached), is set
// aside instead of run again. The caller must make the side effects of a
// change durable before committing the change (sync the spool before
// SaveProgress and Finish) and must make result delivery idempotent per task
// ID, because a crash between a delivery and its commit repeats the
// delivery.
//
// A Queue is safe for concurrent use; bbolt serialises the writes. Only one
// process may open the file at a time; a second Open fails after a short
// wait with an error naming the lock.
package queue
