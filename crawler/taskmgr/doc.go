// Package taskmgr is the client's task manager (paper 000 §2.2): it takes
// tasks from the queue in FIFO order and runs at most CL of them at once,
// each in its own task thread, streams every task's pages into a spool file
// under the data directory, and delivers finished spools through an
// Uploader with retries until a receipt comes back.
//
// The limit on task threads is the connection limit CL of paper 002 (one
// connection per running task). When the contributor's overloading
// threshold OT is below CL, OT is the limit (paper 002 §4.2). Changes to
// either apply without a restart: a raised limit starts waiting tasks at
// once; a lowered one lets running tasks finish and starts no new ones until
// fewer are running.
//
// A Leaser, when set, claims each task's host lease before the task
// starts and renews it while the crawl runs; a task whose host's lease
// another crawler holds waits in the queue and is tried again later.
//
// Crash safety follows from the queue: a spool is written and synced before
// the task is marked done, the upload's receipt is committed before the
// receipt goes to the ledger, and the spool is deleted only after that.
// When the Runner is a Resumer (the crawler is), a running task saves a
// checkpoint every CheckpointEvery pages, after syncing its spool; a task
// interrupted by a crash or a stop resumes at its last checkpoint, its
// spool cut back to what the checkpoint covers. A task without a
// checkpoint, or whose checkpoint does not match its spool, starts again
// from its seeds with an empty spool. A pending upload is resumed when
// Serve starts. An Uploader and a ReceiptSink must therefore accept a
// repeated delivery of the same task ID (a crash between delivering and
// committing repeats it) and treat it as one.
//
// Shutdown (Serve's context ends): no new task starts; the Stopper makes
// each running crawl stop before its next request, so pages in flight
// finish; after Options.Grace the crawls are cancelled. With HandOff, an
// interrupted task with a checkpoint ends as a result cut short at that
// checkpoint, carrying the rest of the crawl, and is uploaded within
// Grace, so the manager issues the rest to whoever takes the host over.
// Other interrupted tasks (HandOff unset, no checkpoint, a rest too large
// to pass on) stay "running" in the queue: Handover passes them and the
// queued ones to the peer taking over, or the next start runs them again
// (from their checkpoint when they have one).
package taskmgr
