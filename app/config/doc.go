// Package config is the volunteer client's configuration: the contributor's
// limits (bandwidth, CPU, memory, connections, quotas, weekly schedule), the
// task manager's sizes and a few preferences, kept in one JSON file.
//
// Config is a plain struct; Default returns the documented defaults, and a
// file only needs the keys that differ. Byte sizes and rates accept units in
// the file and on the command line ("200KB/s", "1.5MiB/s", "512MB", "0");
// percentages accept "50%" or "50".
//
// Load reports a broken file with its line and column and returns safe
// defaults alongside the error; the caller starts with them and the broken
// file is left untouched. Save is atomic (temporary file, fsync, rename).
//
// Store holds the live configuration. Update and Apply validate a change,
// persist it and push the new value to subscribers, so limits change without
// a restart. While the file on disk is broken, changes apply in memory only
// and are not written (Store.Problem says why), so the contributor's file is
// never overwritten behind their back.
package config
