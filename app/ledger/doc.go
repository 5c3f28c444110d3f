// Package ledger keeps the volunteer's credits: every receipt the storage
// module returned (its signed bytes as received, plus the parsed fields),
// totals per local day, confirmed against pending credit, and a recent
// average credit per day with a 7-day half-life, as BOINC's RAC.
//
// The ledger is a bbolt file in the client's data directory. A receipt is
// keyed by its task ID and counted once however often it is added (the task
// manager may deliver a receipt again after a crash). Only confirmed credit
// enters the recent average; pending credit is shown beside it.
//
// Caveat: the ledger does not verify signatures; the caller checks a
// receipt before adding it.
package ledger
