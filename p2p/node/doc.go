// Package node is the live overlay peer: it holds CAN zones on a libp2p host
// (p2p/host) and speaks the overlay's wire protocols (p2p/wire), calling the
// pure CAN core (p2p/can) for routing and load balancing.
//
// Who holds which zone is the manager's decision, not the peers': the
// manager keeps the map (can.Map, manager/zones) and signs a certificate
// for each zone (p2p/zonecert). A peer acts only on certificates:
//   - Ownership (authority.go): a peer holds exactly the zones of its
//     unexpired certificates, and its neighbours are the holders of
//     certificates whose zones abut them. Every certificate it hears of
//     goes into its book (zonecert.Book), which keeps, for each zone, the
//     one signed by the manager with the highest epoch; an older one,
//     replayed or crossed in flight, is refused. What a peer says of
//     itself or of others counts only as far as the manager signed it.
//   - The manager (Config.Authority) answers joins, moves, renewals,
//     leaves and reports with grants: the certificates of the asker's
//     zones, its neighbours' and whatever else changed. A node renews its
//     certificates every Config.Renew (they last three times as long),
//     and a member left without a zone asks again (manage.go).
//   - Heartbeats every Config.Heartbeat (2 s by default) to every
//     neighbour, request and response alike carrying the sender's load,
//     coordinate, neighbour list and the certificates of its zones and
//     its neighbours'; for a few rounds after a grant, those it changed
//     too, to the holders it names and the neighbours before it. RTTs
//     feed the Vivaldi coordinate; with Config.Bounds, drift moves the
//     peer (drift.go), in one request to the manager.
//   - A neighbour that misses Config.DeadAfter (3) heartbeats in a row is
//     reported to the manager, which checks it and, if it is gone, gives
//     its zones to their heirs. No peer takes a zone itself.
//   - Insert: greedy routing to the owner of the target point, then load
//     balancing on insert (can.DecideInsert) up to Config.TTL hops. The
//     owner, and every peer it is balanced to, verify the manager's
//     signature (p2p/envelope) and admit the task (admission.Gate): a live
//     lease, not issued in the future, the signed target the insert was
//     routed to, never seen here before, and for a balanced insert, the
//     certificates of the peers that passed it on from the target's
//     owner. The seen set (SeenSet, the client's bbolt queue) outlives
//     restarts. Each refusal is counted in Stats by reason.
//   - Share (p2p/share, the node's side in share.go): a peer whose queue
//     holds waiting tasks passes those whose hosts it is farthest from to
//     a neighbour with an idle crawl thread, or to a peer two hops away
//     that a neighbour names, with its certificate of the target's zone.
//     The node names the takers and carries each offer.
//   - Leave: a graceful peer asks the manager to give its zones to their
//     heirs, then hands each heir its queued and running tasks whose
//     targets lie in what it received, with its old certificates
//     (p2p/handover): an heir takes tasks only from a peer whose zone the
//     manager has since certified to it (admission.CheckHandover).
//
// Caveats: while the manager cannot be reached, peers route on the
// certificates they hold until those expire; a newcomer cannot join and a
// silent peer's zones wait for the manager (docs/developer/overlay.md).
package node
