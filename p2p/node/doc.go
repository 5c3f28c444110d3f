// Package node is the live overlay peer: it holds CAN zones on a libp2p host
// (p2p/host) and speaks the overlay's wire protocols (p2p/wire), calling the
// pure CAN core (p2p/can) for every decision.
//   - Join: a new peer asks an entry peer to place it at its point; peers
//     that do not own the point redirect the joiner one greedy hop closer,
//     and the owner splits its zone (or gives away one of several) and hands
//     over the half holding the point with the neighbours that abut it.
//   - Heartbeats every Config.Heartbeat (2 s by default) to every neighbour,
//     request and response alike carrying zones, load and neighbour list. A
//     neighbour that misses Config.DeadAfter (3) in a row is dead.
//   - Takeover: the dead peer's neighbours rank themselves by zone volume as
//     the dead peer last announced them (ties to the smaller ID); the first
//     takes the zones at once, the next waits two heartbeats more, and so
//     on, so a zone is never orphaned when its first heir died too. Only a
//     peer whose zones abut an area takes it. Zones that form their parent
//     box merge.
//   - Insert: greedy routing to the owner of the target point, then load
//     balancing on insert (can.DecideInsert), one hop to a neighbour. The
//     owner, and a neighbour it balances to, verify the manager's signature
//     (p2p/envelope) and admit the task (admit.go): a live lease, not
//     issued in the future, the signed target the insert was routed to,
//     balanced only by the target's owner, never seen here before. The
//     seen set (SeenSet, the client's bbolt queue) outlives restarts. Each
//     refusal is counted in Stats by reason.
//   - Share (share.go): a peer whose queue holds waiting tasks passes the
//     ones that would start last to a neighbour with an idle crawl thread,
//     or to a peer two hops away that a neighbour names, as a balanced
//     insert the taker admits.
//   - Leave: a graceful peer hands its zones and its queued and running
//     tasks to the neighbour that would take them over, then says goodbye
//     to the others with a heartbeat that holds no zone of its own and
//     names the heir as their holder. The heir takes tasks only from a
//     neighbour handing over zones, and admits each (lease, issue time,
//     seen).
//   - Overlaps: peers claiming overlapping areas settle them in heartbeats
//     (the smaller peer ID keeps the area); hearsay of an overlap is checked
//     with a probe; a peer left without a zone rejoins at its point.
//   - Gaps (gaps.go): a part of a peer's boundary that no zone it knows
//     covers is looked up (the lookup protocol) and its owner heartbeated;
//     an area nobody holds is claimed by a peer next to it.
//
// Caveats: a peer's first point is given in Config; heartbeat RTTs feed its
// Vivaldi coordinate and, with Config.Bounds, drift moves it. An overlap
// that no common neighbour reports and that leaves no gap in either peer's
// boundary is not found (see docs/overlay.md).
package node
