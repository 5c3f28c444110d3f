// Package app assembles the volunteer client, the way Syncthing's
// lib/syncthing does: directories, configuration, governor, task queue,
// task manager, crawler, uploader, credits ledger, event log, local API
// and web page, and the overlay peer. Client.Serve runs them all and
// shuts them down in order. Nothing imports app but cmd/hivecrawl; the
// tray is a client of the local API.
//
// A client runs in one of three modes (Mode). In network mode, with a
// stored network profile, it takes tasks through the overlay, claims each
// host's lease from the manager and uploads results to the manager's
// storage module, which returns signed receipts. Solo mode, the default
// without a profile, runs a manager, its storage module and a one-peer
// overlay inside the client and takes part in that network; the URLs of
// a seeds file (Options.Seeds) become the manager's channels. Local mode
// joins no network: tasks come from the seeds file (one URL per line,
// each a task for its host and directory, submitted again every
// SeedTasks.Interval) and results go to a LocalUploader, which keeps them
// under the data directory's results/ with an unsigned, clearly labelled
// local receipt.
package app
