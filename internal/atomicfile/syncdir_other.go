//go:build !unix

package atomicfile

// SyncDir does nothing where a directory cannot be opened for syncing
// (Windows): its renames are made durable by the file system's journal.
func SyncDir(string) error { return nil }
