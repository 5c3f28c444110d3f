// Package boltfile opens bbolt files that may have been damaged by a crash,
// a full disk or a user, without panicking or faulting.
//
// bbolt trusts its file: a truncated file makes it read past the end of its
// memory map (SIGBUS), and a wild page number makes it panic or fault in
// the middle of a transaction. Open checks the file before bbolt maps it
// (both meta pages, a size that is a whole number of pages and covers the
// high-water mark, and for files up to CheckLimit every page of the tree
// read with ReadAt), recovers bbolt's panics while opening, then runs
// bbolt's own consistency check (tx.Check) on files up to CheckLimit.
//
// What happens to a damaged file is the caller's Policy: files whose
// contents come back from elsewhere are moved aside as NAME.broken-TIME and
// started empty (one log line); files holding receipts, credit or keys are
// refused with an error that names the file and says what to do.
//
// Caveats: damage inside keys or values that leaves the tree well formed
// is not detected; files larger than CheckLimit get only the cheap checks.
package boltfile
