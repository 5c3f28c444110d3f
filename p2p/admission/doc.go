// Package admission holds the rules by which an overlay peer refuses a
// genuine task, signed by the manager, that reached it: the second line of
// defence behind the host lease (design.md §8). The peer that would queue
// a task, or balance it onward as its target's owner, refuses it when
//   - it has no lease on its host, or the lease has ended (CheckLease,
//     ErrNoLease), or it was issued more than MaxClockSkew after the
//     peer's clock (ErrIssuedAhead);
//   - on the insert path, its signed target is missing, of another
//     dimension, or not the insert's target, both clamped (CheckTarget,
//     ErrTargetMismatch): routing follows the signed point;
//   - a load-balanced insert does not carry the certificates of the peers
//     that passed it on from its target's owner (CheckPath), or a proof
//     that the receiver may claim the task's lease (CheckProof: none
//     does for a task pinned to its target's holder), both ErrMisaimed;
//   - it was shared by a peer that measured its host less than 1/Reach as
//     far as the receiver did (CheckNear, ErrTooFar);
//   - it was seen here before (Record, ErrSeen).
//
// The checks are pure but for Record, which writes to the peer's SeenSet.
// A peer's Gate applies them where the overlay node (p2p/node) would queue
// a task or balance it onward, counts its refusals by reason, and records
// a task as seen only once every other rule has passed: refusals are not
// recorded, or a member could fill a peer's set with misaimed copies of
// tasks that peer may later inherit in a handover. The Gate also
// remembers the tasks the peer passed on, which may come back once with a
// leaving neighbour's zone. The reasons' text travels in the insert
// protocol's refusals, so a refusal read back (Refusal) wraps the reason
// it names.
package admission
