// Package rounds is the manager's recrawl schedule (design.md §9): the
// recrawl strategy (sched/recrawl) over the channel database's channels,
// ranked into priority groups by their change intervals, and the rounds
// it starts. Every schedule tick the manager calls, in order, Sync (the
// channels added since), Reassign (when the strategy's reassignment is
// due), StartRounds (a signed-to-be round for every due channel) and
// Save; the outcomes of rounds come back through Succeeded and Failed.
//
// The strategy's state (recrawl.Snapshot) and the history of the groups'
// intervals live in the channel database's meta bucket, so a restarted
// manager goes on where it stopped, losing at most one tick of history
// counters.
package rounds
