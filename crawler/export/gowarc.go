package export

import "sync"

// gowarcMu serialises every use of gowarc in the process. Each record
// builder and reader gowarc makes writes a process-wide switch in its
// default options (uuid.EnableRandPool), and each record ID it makes reads
// it, so two goroutines using gowarc at once race on it: two storage
// modules in one process did, and a storage module reading a record while
// it writes another would. Writers and readers hold it through
// LockGowarc. It cannot cover the switch's other readers:
// go-libp2p-kad-dht makes each query's ID with uuid.New, so a process that
// writes WARC while its DHT runs a query still races on it (see
// scripts/test.sh).
var gowarcMu sync.Mutex

// LockGowarc locks gowarc for the caller until the returned unlock is
// called. Every gowarc record builder, reader and record in Hivecrawl is
// made and used under it.
func LockGowarc() (unlock func()) {
	gowarcMu.Lock()
	return gowarcMu.Unlock
}
