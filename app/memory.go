package app

import (
	"os"
	"runtime/debug"
)

// gcPercent is the client's garbage-collection target (GOGC): between
// collections the heap may grow to 1.5 times what is live, not twice.
// The client runs at low priority beside the contributor's own programs,
// so it spends a little more CPU on collection, mostly while extracting
// text, to hold less memory. A GOGC environment variable still wins.
// The governor adds a soft limit at 80 % of the memory cap and returns
// free heap to the operating system once the client is quiet.
const gcPercent = 50

// tuneGC sets the client process's GC target.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
