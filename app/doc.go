// Package app assembles the volunteer client, the way Syncthing's
// lib/syncthing does: directories, task queue, task manager, crawler,
// uploader and (as they land) configuration, governor, credits ledger and
// local API. Client.Serve runs them all and shuts them down in order.
// Nothing imports app; cmd/hivecrawl and the tray call it.
//
// Until the overlay (issue 4) and the storage module (issue 5) exist, tasks
// come from a seeds file (Options.Seeds, one URL per line, each a task for
// its host and directory, submitted again every SeedInterval) and results go
// to a LocalUploader, which keeps them under the data directory's results/
// with an unsigned, clearly labelled local receipt.
package app
