// Package recrawl decides how often each channel is recrawled: the strategies
// of paper 000 §3 (FIXED, IIR, ICR), the simple load controller of design.md §9,
// change-frequency estimation from crawl feedback, ranking of channels into
// priority groups, the update-quality measure of design.md §9, and the per-page
// adaptive frequency of paper 003 §3.2–3.3. Subpackage fountain holds the
// WebFountain cycle planner (paper 001).
//
// The package is pure: no network, no disk, no wall clock and no global
// random source. Every event carries the time it happened, so the manager
// (with real time) and the simulator (with one-minute steps mapped onto a
// time.Time) run the very same code.
//
// # Groups and channels
//
// Channels are identified by a dense index (0, 1, 2, … in the order they
// were given or added). Priority groups (PGPs) are sorted from the
// fastest-changing (index 0, "rank 4" in paper 000's tables) to the slowest
// (index K−1, "rank 0"). Each group has one recrawl interval; a channel's
// interval is its group's, raised to half its own change interval when the
// cap of paper 000 §4.3 is on.
//
// # Success rate and churn
//
// Paper 000 defines a group's success rate as hSucCount/hSubCount. Under
// churn some tasks are always lost when a crawler crashes, whatever the load,
// and that literal reading makes IIR and ICR lengthen every interval at every
// reassignment (design.md §9, "churn ratchet"). By default (CountLoadOnly) tasks
// lost without a report are therefore counted as if they had succeeded: only
// load-dependent failures (cancelled for waiting too long, refused by full
// queues) lower the success rate and ICR's capacity estimate, and
// resubmission takes care of the lost ones. CountAll restores the literal
// reading so the simulator can show both. IIR's new interval, the mean gap
// between updates, is taken literally in both modes; it exceeds the interval
// under any failure, so IIR still drifts upward under churn.
//
// # Caveats
//
// Strategies are not safe for concurrent use: the caller owns one and feeds
// it events from a single goroutine (or behind its own mutex). Channel
// indexes out of range panic, as slice indexes do.
package recrawl
