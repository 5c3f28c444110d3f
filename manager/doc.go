// Package manager assembles the operator's service (design.md §2, §6): the
// channel database (manager/channels), the recrawl schedule
// (manager/rounds, over sched/recrawl's strategies), the lease desk that
// answers crawlers (manager/leasedesk), the dispatcher that grants,
// signs and aims the tasks (manager/dispatch), submission of signed tasks
// into the overlay (manager/submit), the zone map and its members
// (manager/zones, manager/members), placement of hosts
// (manager/placement), the storage module with its credit receipts
// (manager/storage), what web sites reach (manager/site) and the
// operator's API with the status page (manager/operator), all on one
// libp2p host whose key signs tasks, zones and receipts, and the task book
// (manager/taskbook) through which results, cancellations and lost tasks
// reach the schedule. Options has a group of settings for each. The root
// package wires them: New builds them, Manager.Serve runs them in an
// internal/services group, and Tick runs one schedule round through
// them in order.
//
// # Schedule
//
// Every Options.Schedule.Tick the manager
//  1. marks open tasks whose deadline (issue time + 2 × interval +
//     Options.Schedule.Slack) passed as lost (manager/taskbook); a
//     round that ended without any result is a failure for the strategy
//     (recrawl.FailLost);
//  2. runs the strategy's reassignment when it is due (with
//     recrawl.Config.MaxPeriod set, also on a timer), then re-ranks the
//     channels into priority groups by their estimated change intervals;
//  3. starts a round for every channel without open tasks whose interval
//     since the last round has passed, or that its user asked to crawl
//     now, or whose site pushed URLs (IndexNow, Options.Site.IndexNow,
//     which wakes the schedule at once; the URLs lead the pages the
//     round revisits): one task, or one per piece for a host of more
//     than Options.Schedule.PieceAbove pages (sched/pieces), each signed
//     with the manager's key and stored before it is sent;
//  4. sends the tasks not yet sent to a random entry peer (retried on the
//     next tick while it fails). A task sent without an answer, or being
//     sent when the manager stopped, may sit in a peer's queue: it is not
//     sent again (a second copy could land on another peer, and two
//     crawlers would work on one host), and counts lost at its deadline
//     if no result comes.
//
// A round succeeds when one of its tasks' results is stored; the storage
// module reports it through the task book (manager/taskbook), which
// feeds the channel database and the strategy.
//
// # Durability
//
// Channels, issued tasks and results are written in bbolt transactions
// before anything depends on them, so a manager killed at any point and
// restarted loses neither a channel nor an accepted result. The strategy's
// state (recrawl.Snapshot) is saved every tick when it changed, so a kill
// loses at most one tick of history counters.
//
// # Metrics
//
// The local API serves Prometheus metrics at /metrics (manager/metrics,
// docs/operator/metrics.md), most read from the databases when scraped,
// and the status page plots pages and results stored per second over the
// last hour (sampled every schedule round, drawn by manager/operator).
//
// # Caveats
//
// Crawlers report the tasks they cancel for waiting longer than their
// interval (proto/report): such a round is a load-dependent failure
// (recrawl.FailExpired) for the strategy, as design.md §9 requires, while a
// task that vanished without a word (a crash) counts as lost at its
// deadline. A task every entry peer refused is retried at the next tick,
// not yet counted as FailRefused. Host points are hashes of host names
// unless Options.Placement.Bounds (or a Submit.Locator) turns on
// coordinate-aware placement.
package manager
