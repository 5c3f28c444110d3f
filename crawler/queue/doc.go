// Package queue is the client's on-disk task queue (paper 000 §2.2): crawl
// tasks waiting for a task thread, the ones running, and the finished ones
// whose results still wait to be uploaded, kept in a bbolt file in the data
// directory.
//
// Each task is stored with its raw bytes (the signed envelope it arrived in,
// passed on untouched at handover) and its decoded form. A task moves
//
//	queued → running → done | cancelled (with a reason)
//	queued | running → handed over (graceful leave)
//
// and a done task's result moves through the upload states
//
//	pending → delivered (receipt kept) → recorded (receipt in the ledger).
//
// The queue is FIFO with a maximum length; Enqueue on a full queue fails with
// ErrFull, which the overlay counts as a load-dependent refusal (DESIGN §9).
// A task that waited longer than its recrawl interval is cancelled when it
// reaches the head of the queue.
//
// Crash safety: every change is one bbolt transaction, so after a crash the
// file holds the state of the last committed change. Open returns tasks that
// were running when the process died to the queue, at their old place, so
// they are re-executed from scratch (paper 002 chose re-execution over
// checkpoints). The caller must make the side effects of a change durable
// before committing the change (write and sync the spool file before Finish)
// and must make result delivery idempotent per task ID, because a crash
// between a delivery and its commit repeats the delivery.
//
// A Queue is safe for concurrent use; bbolt serialises the writes. Only one
// process may open the file at a time; a second Open fails after a short
// wait with an error naming the lock.
package queue
