// Package storage is the manager's storage module (design.md §2 step 6–7, §8):
// crawlers upload a finished task's result over proto/upload, the module
// checks it, stores the extracted text as WARC 1.1 `conversion` records
// (WET-style, one gzip member per record; with Options.StoreRaw the raw
// responses a task asked for as `response` records before them) in
// rotating files under the manager's data directory `warc/`, keeps a bbolt
// index of URL → latest digest, validators and WARC location, feeds the
// result back to the channel database (through Tasks), and answers with a
// credit receipt signed with the manager's key, which anyone holding the
// network profile can verify (upload.VerifyReceipt).
//
// With Options.Validation (a network's manager sets it; solo mode does
// not) every result is spot-checked (validate.go): a sample of its pages
// is re-fetched by other volunteers and compared with what was uploaded.
// Its receipt's credit stays pending until the check confirms or revokes
// it, and the crawler fetches the receipt signed again over
// upload.ReceiptsProtocol. docs/developer/validation.md explains the rules.
//
// # Files
//
// WARC files are closed at Options.MaxFileSize (1 GiB) and at Close, each
// with a CDXJ index beside it (cdxj.go). With an Archive (an
// S3-compatible bucket, package bucket) a closed file and its index are
// uploaded in the background, retried until the store confirms them, and
// only then removed locally; Read then fetches a record with a ranged
// GET. At start, WARC files without an index (left by a crash) are cut
// back to their last whole record and indexed, and with an Archive every
// closed file still local is uploaded. docs/operator/storage.md is the operator's
// account.
//
// # Rules
//
//   - The task must open with the manager's key (p2p/envelope) and have been
//     issued by this manager (Tasks.Task); otherwise the upload is refused
//     and earns nothing.
//   - A task's first valid result wins. The same peer repeating its upload
//     (after a crash or a lost response) gets its receipt again; a result of
//     another peer, or one that came after the task was counted lost, gets a
//     receipt of zero credit (Response.Duplicate) so that its crawler stops
//     retrying.
//   - Only pages on the task's hosts count; a page whose text does not
//     decompress is dropped.
//   - A task on a host that opted out (Options.OptOuts) is refused for
//     good, whenever it was crawled: nothing of it is stored.
//
// # Credits
//
//	credits = 1.0 × new pages + 1.0 × changed pages
//	        + 0.1 × unchanged pages + 0.5 × MiB of compressed text stored
//
// rounded to hundredths (Credits). New and changed are judged against the
// module's own index, not the crawler's claim.
//
// # Caveats
//
// An upload is spooled to a file under the data directory's uploads/ as
// it is read (at most upload.MaxUploadBytes; at most Options.Concurrent at once)
// and stored from there a page at a time, its text indexed for search in
// small batches: storing a result takes memory for its largest page and
// one search batch, not for its page count, and is admitted against
// Options.Admit (the client's memory cap in solo mode). A crash after the WARC records were
// synced but before the receipt was stored makes the retry write the
// records again: WARC files may hold a record twice, the index once.
// Without Validation the text a peer uploads for a URL on the task's host
// is not checked against the web; with it, only a sample of each result
// is (sample.go sizes it so that forging pages does not pay).
package storage
