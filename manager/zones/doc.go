// Package zones is the manager's certified map of the overlay: the one
// authority of who holds which zone of the CAN space (design.md §5, issue
// #42). Peers no longer settle ownership among themselves; they ask the
// manager (proto/entry, answered by manager/members) to join, move, renew
// and leave, and the Authority answers with zone certificates
// (p2p/zonecert) signed with the manager's key, which peers check one
// another's claims against.
//
// The map is a can.Map, kept in the manager's store (internal/kv: the
// channel database's bbolt file, or PostgreSQL shared by several managers
// holding the operator's key) in one bucket, Bucket:
//
//	map          the map (can.Map.MarshalBinary), rewritten on a change
//	             of shape: join, leave, move, expiry, eviction
//	version      a counter, raised with every write of map
//	renewal/ID   the expiry holder ID's last renewal granted
//
// A renewal writes only its holder's small row: with 10,000 members
// renewing every 10 s the map (about 690 kB at that size) is not
// rewritten a thousand times a second. The Authority keeps the decoded map
// in memory and reuses it while the stored version is the one it decoded;
// a change another manager made is noticed by the version and decoded
// again. Renewal rows are folded into the map (can.Map.Extend) before it
// changes shape or expires anyone, so expiries are current where they
// count. Every operation is one transaction; a new Authority on the same
// store goes on exactly where the last one was, epochs included.
//
// Caveats:
//
//   - Operations of one Authority run one at a time (a mutex held through
//     each transaction). On PostgreSQL a renewal takes a few round trips,
//     so one manager serves renewals at the rate its database answers;
//     managers sharing the database serve theirs side by side.
//   - The certificates of a holder's neighbours carry the expiry this
//     manager last read for them: its own renewals, and the rows Expire
//     reads every time it runs. A neighbour that renews with another
//     manager is certified with an expiry at most one Expire period old;
//     the asker hears a fresher one at its next renewal.
//   - Reads (Holders, Zones, Owner) answer from memory, as of this
//     Authority's last operation or Expire.
//   - A map stored before keeps the TTL it was made with; Options.TTL sets
//     the TTL of a new map only.
//   - The liveness check of a suspect (Report) is limited per manager:
//     two managers may each check the same suspect once per CheckEvery.
//   - Takeover is no longer decentralised: a dead peer's zones go to its
//     heirs when its certificates expire (Expire) or a neighbour's report
//     is confirmed, by this authority. While no manager is reachable
//     peers keep the certificates they hold until those expire.
package zones
